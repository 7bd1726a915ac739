/** Thrown for a failure the user caused or can fix: the CLI prints its message and exits 1. */
export class CliFailure extends Error {}

/** Stdin when it is not a terminal (one line; the trailing newline dropped), else a prompt. */
export async function readNewPassword(): Promise<string> {
  if (!process.stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    const line = Buffer.concat(chunks)
      .toString('utf8')
      .replace(/\r?\n$/, '');
    // a second line would become part of a password nobody can type at a sign-in form
    if (/[\r\n]/.test(line)) throw new CliFailure('give the new password on one line');
    return line;
  }
  const first = await promptHidden('New password: ');
  const second = await promptHidden('Repeat it: ');
  if (first !== second) throw new CliFailure('the two passwords differ');
  return first;
}

function promptHidden(question: string): Promise<string> {
  const stdin = process.stdin;
  stdin.setRawMode(true); // before the question: nothing typed after it is echoed
  process.stderr.write(question);
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = (error?: Error) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return finish();
        if (ch === '\u0003' || ch === '\u0004') return finish(new CliFailure('cancelled'));
        value = ch === '\u007f' || ch === '\b' ? [...value].slice(0, -1).join('') : value + ch;
      }
    };
    stdin.on('data', onData);
  });
}
