// Template processing as openshift/library-go pkg/template/templateprocessing/template.go and
// pkg/template/generator/expressionvalue.go do it, including their quirks (see docs/wire-reference.md §1).
import { randomInt } from 'node:crypto';
import { setOwn } from '../../src/util/json.ts';
import { groupified } from './groupification.ts';
import { badRequest, invalid, type FieldError, StatusError } from '../objects/status.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = Record<string, Json>;

interface Parameter {
  name?: string;
  displayName?: string;
  description?: string;
  value?: string;
  generate?: string;
  from?: string;
  required?: boolean;
}

const TEMPLATE_GROUP_KIND = { group: 'template.openshift.io', kind: 'Template' };
const PARAMETER_NAME = /^[a-zA-Z0-9_]+$/;
const STRING_PARAMETER = /\$\{([a-zA-Z0-9_]+?)\}/g;
const NON_STRING_PARAMETER = /^\$\{\{([a-zA-Z0-9_]+)\}\}$/;

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
const NUMERALS = '0123456789';
const SYMBOLS = '~!@#$%^&*()-_+={}[]\\|<,>.?/"\';:`';
const ASCII = ALPHABET + NUMERALS + SYMBOLS;
const RANGE = /([\\]?[a-zA-Z0-9]-?[a-zA-Z0-9]?)/g;
const GENERATOR = /\[([a-zA-Z0-9\-\\]+)\](\{([0-9]+)\})/;
const EXPRESSION = /\[(\\w|\\d|\\a|\\A)|([a-zA-Z0-9]-[a-zA-Z0-9])+\]/;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

class GeneratorError extends Error {}

function alphabetSlice(from: string, to: string): string {
  const left = ASCII.indexOf(from);
  const right = ASCII.lastIndexOf(to);
  if (left > right) throw new GeneratorError(`invalid range specified: ${from}-${to}`);
  // Upstream slices [left, right): the upper bound of a range is never generated.
  return ASCII.slice(left, right);
}

function uniqueCharacters(input: string): string {
  return [...new Set(input)].join('');
}

function alphabetFor(ranges: string): string {
  let alphabet = '';
  for (const match of ranges.matchAll(RANGE)) {
    const text = match[0];
    const pair = (text[0] ?? '') + (text[text.length - 1] ?? '');
    if (pair === '\\w') alphabet += ALPHABET + NUMERALS + '_';
    else if (pair === '\\d') alphabet += NUMERALS;
    else if (pair === '\\a') alphabet += ALPHABET + NUMERALS;
    else if (pair === '\\A') alphabet += SYMBOLS;
    else alphabet += alphabetSlice(pair[0] ?? '', pair[1] ?? '');
  }
  return uniqueCharacters(alphabet);
}

/** The `expression` generator: replaces each `[class]{N}` in turn with N random characters. */
export function generateExpression(from: string): string {
  let expression = from;
  for (;;) {
    const match = GENERATOR.exec(expression);
    if (!match) return expression;
    const piece = match[0];
    const ranges = piece.slice(0, piece.lastIndexOf('{'));
    if (!EXPRESSION.test(ranges)) throw new GeneratorError(`malformed expresion syntax: ${ranges}`);
    const length = Number.parseInt(piece.slice(piece.lastIndexOf('{') + 1, -1), 10);
    if (!(length > 0 && length <= 255)) {
      throw new GeneratorError(`range must be within [1-255] characters (${length})`);
    }
    const alphabet = alphabetFor(ranges);
    let generated = '';
    for (let i = 0; i < length; i++) generated += alphabet[randomInt(alphabet.length)] ?? '';
    expression = expression.replace(piece, () => generated);
  }
}

/**
 * A Parameter as a field error quotes it: apimachinery's ErrorBody (util/validation/field/errors.go)
 * writes a struct value with encoding/json, so in the Go type's field order, empty fields left out
 * (omitempty) and <, > and & escaped.
 */
function parameterJson(p: Parameter): string {
  const fields: [string, string | boolean | undefined][] = [
    ['displayName', p.displayName],
    ['description', p.description],
    ['value', p.value],
    ['generate', p.generate],
    ['from', p.from],
    ['required', p.required],
  ];
  const json: Record<string, string | boolean> = { name: p.name ?? '' };
  for (const [key, value] of fields)
    if (value !== undefined && value !== '' && value !== false) json[key] = value;
  return JSON.stringify(json).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function validateParameterNames(parameters: Parameter[]): FieldError[] {
  const errors: FieldError[] = [];
  parameters.forEach((p, i) => {
    const field = `parameters[${i}].name`;
    if (!p.name) errors.push({ type: 'Required', field });
    else if (!PARAMETER_NAME.test(p.name)) {
      errors.push({
        type: 'Invalid',
        field,
        value: JSON.stringify(p.name),
        detail: `does not match ${PARAMETER_NAME.source}`,
      });
    }
  });
  return errors;
}

function generateValues(parameters: Parameter[]): FieldError[] {
  const errors: FieldError[] = [];
  parameters.forEach((p, i) => {
    const field = `template.parameters[${i}]`;
    if (p.value) return;
    if (p.generate) {
      if (p.generate !== 'expression') {
        errors.push({
          type: 'Invalid',
          field,
          value: JSON.stringify(p.generate),
          detail: `Unknown generator name '${p.generate}' for parameter ${p.name ?? ''}`,
        });
        return;
      }
      try {
        p.value = generateExpression(p.from ?? '');
      } catch (error) {
        const detail = error instanceof Error ? error.message : String(error);
        errors.push({ type: 'Invalid', field, value: parameterJson(p), detail });
        return;
      }
    }
    if (!p.value && p.required) {
      errors.push({
        type: 'Required',
        field,
        detail: `template.parameters[${i}]: parameter ${p.name ?? ''} is required and must be specified`,
      });
    }
  });
  return errors;
}

/**
 * library-go's EvaluateParameterSubstitution: a whole-string `${{NAME}}` is replaced by the value's
 * text and marked non-string; otherwise every `${NAME}` is replaced (first occurrence of the match
 * text each time, as Go's strings.Replace(..., 1) does). Unknown names stay literal.
 */
function substituteText(values: Map<string, string>, input: string): { text: string; asString: boolean } {
  const whole = NON_STRING_PARAMETER.exec(input);
  if (whole?.[1] !== undefined) {
    const value = values.get(whole[1]);
    if (value !== undefined) return { text: input.replace(whole[0], () => value), asString: false };
  }
  let out = input;
  for (const match of input.matchAll(STRING_PARAMETER)) {
    const value = match[1] === undefined ? undefined : values.get(match[1]);
    if (value !== undefined) out = out.replace(match[0], () => value);
  }
  return { text: out, asString: true };
}

/** In object fields only, a non-string substitution is parsed as JSON (and stays a string if it is not). */
function substituteField(values: Map<string, string>, input: string): Json {
  const { text, asString } = substituteText(values, input);
  if (asString) return text;
  try {
    return JSON.parse(text) as Json;
  } catch {
    return text;
  }
}

function substituteDeep(values: Map<string, string>, node: Json): Json {
  if (typeof node === 'string') return substituteField(values, node);
  if (Array.isArray(node)) return node.map((item) => substituteDeep(values, item));
  if (isObject(node)) {
    const out: JsonObject = {};
    for (const [key, child] of Object.entries(node)) {
      setOwn(out, substituteText(values, key).text, substituteDeep(values, child));
    }
    return out;
  }
  return node;
}

/** A literal namespace is removed; one that refers to a parameter is kept and substituted. */
function stripNamespace(object: JsonObject): void {
  const metadata = object.metadata;
  if (!isObject(metadata) || !('namespace' in metadata)) return;
  const namespace = metadata.namespace;
  if (typeof namespace === 'string' && /\$\{([a-zA-Z0-9_]+?)\}/.test(namespace)) return;
  // Unstructured.SetNamespace("") removes the field; a non-string value becomes "".
  if (typeof namespace === 'string' && namespace !== '') delete metadata.namespace;
  else metadata.namespace = '';
}

/** Template labels win on a collision; a present but empty `labels` still sets `metadata.labels`. */
function addLabels(object: JsonObject, labels: Record<string, string> | undefined): void {
  if (labels === undefined) return;
  const metadata = isObject(object.metadata) ? object.metadata : {};
  object.metadata = metadata;
  const existing = isObject(metadata.labels) ? metadata.labels : {};
  metadata.labels = { ...existing, ...labels };
}

/**
 * Handles `POST .../namespaces/{namespace}/processedtemplates`: validates the submitted Template
 * and returns it processed (status 201 at the caller).
 */
export function processTemplate(body: unknown, namespace: string): JsonObject {
  if (!isObject(body)) throw badRequest('the body of the request was in an unknown format');
  if (body.apiVersion !== 'template.openshift.io/v1') {
    throw badRequest(
      `the API version in the data (${typeof body.apiVersion === 'string' ? body.apiVersion : ''}) does not match the expected API version (template.openshift.io/v1)`,
    );
  }
  const template = structuredClone(body);
  const metadata = isObject(template.metadata) ? template.metadata : {};
  template.metadata = metadata;
  const bodyNamespace = typeof metadata.namespace === 'string' ? metadata.namespace : '';
  if (bodyNamespace !== '' && bodyNamespace !== namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  metadata.namespace = namespace;
  const name = typeof metadata.name === 'string' ? metadata.name : '';
  const parameters = (Array.isArray(template.parameters) ? template.parameters : []) as Parameter[];

  const nameErrors = validateParameterNames(parameters);
  if (nameErrors.length > 0) throw invalid(TEMPLATE_GROUP_KIND, name, nameErrors);
  const generatorErrors = generateValues(parameters);
  if (generatorErrors.length > 0) throw invalid(TEMPLATE_GROUP_KIND, name, generatorErrors);

  const values = new Map(parameters.map((p) => [p.name ?? '', p.value ?? '']));
  // The message and the labels are plain strings upstream: `${{NAME}}` is replaced, never parsed.
  if (typeof template.message === 'string') template.message = substituteText(values, template.message).text;

  let labels: Record<string, string> | undefined;
  if (isObject(template.labels)) {
    labels = {};
    for (const [key, value] of Object.entries(template.labels)) {
      const text = typeof value === 'string' ? value : JSON.stringify(value);
      labels[substituteText(values, key).text] = substituteText(values, text).text;
    }
    template.labels = labels;
  }

  const objects = Array.isArray(template.objects) ? template.objects : [];
  const itemErrors: FieldError[] = [];
  template.objects = objects.map((item, i) => {
    if (!isObject(item) || typeof item.kind !== 'string' || item.kind === '') {
      itemErrors.push({
        type: 'Invalid',
        field: `item[${i}].objects`,
        value: 'runtime.RawExtension{}',
        detail: "unable to handle object: Object 'Kind' is missing in '" + JSON.stringify(item) + "'",
      });
      return item;
    }
    const copy = structuredClone(item);
    stripNamespace(copy);
    const processed = substituteDeep(values, copy) as JsonObject;
    // After substitution, so a substituted kind is moved into its group too.
    const apiVersion = groupified(processed.apiVersion, processed.kind);
    if (typeof apiVersion === 'string') processed.apiVersion = apiVersion;
    addLabels(processed, labels);
    return processed;
  });
  if (itemErrors.length > 0) throw invalid(TEMPLATE_GROUP_KIND, name, itemErrors);
  return template;
}

export { StatusError };
