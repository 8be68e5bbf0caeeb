import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';

/** PEM material for one simulator start: a private CA and a server certificate it signed. */
export interface TlsMaterial {
  caCert: string;
  serverCert: string;
  serverKey: string;
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

function newCertificate(publicKey: forge.pki.PublicKey, days: number): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = `01${randomBytes(15).toString('hex')}`;
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + days * 86_400_000);
  return cert;
}

/**
 * Generates a fresh CA and a server certificate for 127.0.0.1 and localhost, entirely offline,
 * so every simulator start has its own trust root and a test can also present an unknown CA.
 */
export function generateTlsMaterial(commonName = 'openshift-simulator'): TlsMaterial {
  const ca = newKeyPair();
  const caCert = newCertificate(ca.publicKey, 2);
  // A unique CA name per start, so a foreign CA is "unknown", not a look-alike with a bad signature.
  const caSubject = [{ name: 'commonName', value: `${commonName}-ca-${randomBytes(4).toString('hex')}` }];
  caCert.setSubject(caSubject);
  caCert.setIssuer(caSubject);
  caCert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
  ]);
  caCert.sign(ca.privateKey as forge.pki.rsa.PrivateKey, forge.md.sha256.create());

  const server = newKeyPair();
  const serverCert = newCertificate(server.publicKey, 2);
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
        { type: 2, value: 'localhost' },
      ],
    },
  ]);
  serverCert.sign(ca.privateKey as forge.pki.rsa.PrivateKey, forge.md.sha256.create());

  return {
    caCert: forge.pki.certificateToPem(caCert),
    serverCert: forge.pki.certificateToPem(serverCert),
    serverKey: server.privateKeyPem,
  };
}
