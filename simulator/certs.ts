import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';

/** PEM material for one simulator start: a private CA and a server certificate it signed. */
export interface TlsMaterial {
  caCert: string;
  serverCert: string;
  serverKey: string;
  /** The CA whose client certificates authenticate users (kube-apiserver's --client-ca-file). */
  clientCaCert: string;
  clientCaKey: string;
}

/** A client certificate and its key, as an exec credential plugin hands them over. */
export interface ClientCertificate {
  cert: string;
  key: string;
  notAfter: Date;
}

function newKeyPair(): {
  privateKeyPem: string;
  publicKey: forge.pki.PublicKey;
  privateKey: forge.pki.PrivateKey;
} {
  // Node's native generator is fast; forge would take seconds for RSA-2048 in pure JavaScript.
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const privateKeyPem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const forgeKey = forge.pki.privateKeyFromPem(privateKeyPem);
  return {
    privateKeyPem,
    privateKey: forgeKey,
    publicKey: forge.pki.setRsaPublicKey(forgeKey.n, forgeKey.e),
  };
}

function newCertificate(publicKey: forge.pki.PublicKey, validMs: number): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = `01${randomBytes(15).toString('hex')}`;
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + validMs);
  return cert;
}

const DAY_MS = 86_400_000;

function newCa(label: string): {
  cert: forge.pki.Certificate;
  privateKeyPem: string;
  key: forge.pki.PrivateKey;
} {
  const ca = newKeyPair();
  const cert = newCertificate(ca.publicKey, 2 * DAY_MS);
  // A unique CA name per start, so a foreign CA is "unknown", not a look-alike with a bad signature.
  const subject = [{ name: 'commonName', value: `${label}-${randomBytes(4).toString('hex')}` }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
  ]);
  cert.sign(ca.privateKey as forge.pki.rsa.PrivateKey, forge.md.sha256.create());
  return { cert, privateKeyPem: ca.privateKeyPem, key: ca.privateKey };
}

/**
 * A client certificate for `user` signed by the simulator's client CA, valid for `validMs` from
 * now (X.509 counts whole seconds). The simulator authenticates it as kube-apiserver does: the
 * common name is the user, and the chain and validity are checked at every request.
 */
export function issueClientCertificate(
  material: TlsMaterial,
  user: string,
  validMs: number,
): ClientCertificate {
  const pair = newKeyPair();
  const cert = newCertificate(pair.publicKey, validMs);
  const ca = forge.pki.certificateFromPem(material.clientCaCert);
  cert.setSubject([{ name: 'commonName', value: user }]);
  cert.setIssuer(ca.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', clientAuth: true },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(material.clientCaKey), forge.md.sha256.create());
  return {
    cert: forge.pki.certificateToPem(cert),
    key: pair.privateKeyPem,
    notAfter: cert.validity.notAfter,
  };
}

/**
 * Generates a fresh CA and a server certificate for 127.0.0.1, ::1, localhost and `dnsNames`,
 * entirely offline, so every simulator start has its own trust root and a test can also present
 * an unknown CA. (An aggregated API server's certificate must also carry the name
 * `<service>.<namespace>.svc` kube-apiserver's aggregator verifies it under.)
 */
export function generateTlsMaterial(
  commonName = 'openshift-simulator',
  dnsNames: readonly string[] = [],
): TlsMaterial {
  const ca = newCa(`${commonName}-ca`);
  const caCert = ca.cert;
  const caSubject = caCert.subject.attributes;
  const clientCa = newCa(`${commonName}-client-ca`);

  const server = newKeyPair();
  const serverCert = newCertificate(server.publicKey, 2 * DAY_MS);
  serverCert.setSubject([{ name: 'commonName', value: commonName }]);
  serverCert.setIssuer(caSubject);
  serverCert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: [
        { type: 7, ip: '127.0.0.1' },
        { type: 7, ip: '::1' },
        { type: 2, value: 'localhost' },
        ...dnsNames.map((value) => ({ type: 2, value })),
      ],
    },
  ]);
  serverCert.sign(ca.key as forge.pki.rsa.PrivateKey, forge.md.sha256.create());

  return {
    caCert: forge.pki.certificateToPem(caCert),
    serverCert: forge.pki.certificateToPem(serverCert),
    serverKey: server.privateKeyPem,
    clientCaCert: forge.pki.certificateToPem(clientCa.cert),
    clientCaKey: clientCa.privateKeyPem,
  };
}
