/**
 * Which of a fork module's settings are secrets, and the values the consumer hides wherever the
 * module's text goes (module-redaction.ts). A setting is secret when
 *   - the module lists it in its definition's `secrets` (define-importer.ts, define-sink.ts), or
 *   - its name says so: it contains TOKEN, SECRET, PASSWORD, PASSPHRASE, KEY or CREDENTIAL
 *     (`ERP_TOKEN`, `MY_ERP_API_KEY`), whether listed or not, so a module that forgets to list
 *     its token is covered all the same.
 * Besides, the password of any setting that is a URL with userinfo (`https://erp:pw@host`) is
 * a secret, and so is its `user:password` pair (the text of a Basic Authorization header).
 */

/** Names that hold a secret, whatever the module declares. */
export const SECRET_NAME = /TOKEN|SECRET|PASSWORD|PASSPHRASE|KEY|CREDENTIAL/i;

/** Whether the setting `name` is secret for a module that lists `declared`. */
export function isSecretSetting(name: string, declared: readonly string[]): boolean {
  return SECRET_NAME.test(name) || declared.includes(name);
}

/**
 * What is wrong with a definition's `secrets` list: each entry must be one of its settings
 * (`names`); `who` words the problem (`importer my-erp`).
 */
export function secretsProblems(
  declared: readonly string[],
  names: readonly string[],
  who: string,
): string[] {
  return declared
    .filter((name) => !names.includes(name))
    .map(
      (name) =>
        `${who} lists ${name} in its secrets, which is not one of its settings (${names.join(', ') || 'none'})`,
    );
}

/**
 * The secret values among a module's settings as set (`input`, each variable's text): the
 * values of its secret settings, and the userinfo parts of every URL-like value.
 */
export function secretValues(
  input: Readonly<Record<string, string | undefined>>,
  declared: readonly string[],
): string[] {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(input)) {
    if (value === undefined) continue;
    if (isSecretSetting(name, declared)) values.add(value);
    for (const part of userinfoParts(value)) values.add(part);
  }
  return [...values];
}

/** The password and `user:password` of a URL-like value, as written and decoded. */
function userinfoParts(value: string): string[] {
  const userinfo = /^[a-z][a-z0-9+.-]*:\/*([^@]*)@/i.exec(value)?.[1];
  if (userinfo === undefined) return [];
  const colon = userinfo.indexOf(':');
  const raw = colon === -1 ? [userinfo] : [userinfo, userinfo.slice(colon + 1)];
  return raw.flatMap((part) => [part, safeDecode(part)]).filter((part) => part !== '');
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
