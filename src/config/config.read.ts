import Type, { type StaticDecode, type TObject, type TProperties } from 'typebox';
import { Check, DecodeUnsafe } from 'typebox/value';
import type { Annotations } from './config.kinds.js';

/** An unusable setting: one line naming the variable, the server does not start. */
export class ConfigError extends Error {}

export type Env = Record<string, string | undefined>;

/**
 * The variables `schema` declares, read from `env` and decoded: blank is unset, unset takes the
 * declared default, an Optional one without a default stays undefined, any other one must be set.
 * A value its schema refuses throws `LARDER_X: <error> (got "<value>")`, secrets without the value.
 */
export function readVariables<P extends TProperties>(
  schema: TObject<P>,
  env: Env,
): StaticDecode<TObject<P>> {
  const values: Record<string, unknown> = {};
  for (const [name, variable] of Object.entries(schema.properties)) {
    const annotations = variable as unknown as Annotations;
    const raw = setting(env[name], annotations) ?? annotations.default;
    if (raw === undefined) {
      if (!Type.IsOptional(variable)) refuse(name, annotations, '');
      continue;
    }
    if (!Check(variable, raw)) refuse(name, annotations, raw);
    values[name] = DecodeUnsafe({}, variable, raw); // checked on the line above
  }
  return values as StaticDecode<TObject<P>>;
}

function setting(value: string | undefined, variable: Annotations): string | undefined {
  const read = variable.verbatim ? value : value?.trim();
  return read === '' ? undefined : read;
}

function refuse(name: string, variable: Annotations, value: string): never {
  const got = variable.secret ? '' : ` (got "${value}")`;
  throw new ConfigError(`${name}: ${variable.error}${got}`);
}
