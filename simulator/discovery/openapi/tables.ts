// The compact type tables the simulator types bodies with: one per group-version document, built
// on the first body of that group-version and rebuilt when the document's hash changes (a kind
// added at run time). Whether /openapi/v3 is served does not matter: the server types either way.
import { compactTypes, kindKey, type TypeTable } from '../../../src/schema/index.ts';
import type { ResourceInfo } from '../../types.ts';
import { documentPath, type OpenApiDocuments } from './documents.ts';
import { isObject, type Json } from './json.ts';

/** apiextensions-apiserver's title for the documents of CRD-served group-versions. */
const CRD_TITLE = 'Kubernetes CRD Swagger';

/** What typing a kind needs: the table, the kind's type name, and whether it is built in. */
export interface KindTypes {
  table: TypeTable;
  type: string;
  /** Built-in kinds are decoded into Go types after typing; custom resources are not. */
  builtIn: boolean;
}

interface Built {
  hash: string;
  table: TypeTable;
  builtIn: boolean;
}

export class TypeTables {
  readonly #documents: OpenApiDocuments;
  readonly #built = new Map<string, Built>();

  constructor(documents: OpenApiDocuments) {
    this.#documents = documents;
  }

  /** The types of a resource's kind, or `undefined` when no document declares it. */
  forKind(info: Pick<ResourceInfo, 'group' | 'version' | 'kind'>): KindTypes | undefined {
    const built = this.#table(documentPath(info));
    const apiVersion = info.group === '' ? info.version : `${info.group}/${info.version}`;
    const type = built?.table.kinds[kindKey(apiVersion, info.kind)];
    return built === undefined || type === undefined
      ? undefined
      : { table: built.table, type, builtIn: built.builtIn };
  }

  #table(path: string): Built | undefined {
    const hash = this.#documents.hash(path);
    if (hash === undefined) return undefined;
    const cached = this.#built.get(path);
    if (cached?.hash === hash) return cached;
    const text = this.#documents.document(path)?.text;
    if (text === undefined) return undefined;
    const document = JSON.parse(text) as Json;
    const info = isObject(document) && isObject(document.info) ? document.info : {};
    const built = { hash, table: compactTypes(document), builtIn: info.title !== CRD_TITLE };
    this.#built.set(path, built);
    return built;
  }
}
