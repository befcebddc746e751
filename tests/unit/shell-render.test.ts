import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { InterpolationError } from '../../fsm/interpolate.js';
import { renderShell } from '../../fsm/shell-render.js';
import { TemplateSyntaxError } from '../../fsm/template.js';
import { scope } from './helpers.js';

const EVIL = `'; rm -rf x; "$(touch pwned)" \`id\` $HOME`;
const s = scope({
  context: { metric_cmd: "ruff check | jq '.count'", dir: 'src/', quote: "'", n: 7 },
  captured: {
    x: { output: 'DATA', stderr: 'ERR', exit_code: 2, duration_ms: 9 },
    evil: { output: EVIL, stderr: '', exit_code: 0, duration_ms: 1 },
  },
  prev: { state: 'lint', output: 'P', stderr: '', exit_code: 1 },
  result: { verdict: 'no', details: { reason: "can't fix", confidence: 0.5 } },
  state: { name: 'fix', iteration: 2 },
});
const V = (n: number) => `\${LL_V${n}}`;
const E = (n: number) => `\${LL_E${n}}`;
const SQ = (ref: string) => `'"${ref}"'`;
const withV = (output: string) => scope({ captured: { v: { output, stderr: '', exit_code: 0, duration_ms: 1 } } });

describe('trusted values are code', () => {
  it.each([
    ['${context.metric_cmd}', "ruff check | jq '.count'"],
    ['mypy ${context.dir} --n ${context.n}', 'mypy src/ --n 7'],
    ['echo ${state.name}-${state.iteration} ${loop.name}', 'echo fix-2 test-loop'],
    ["echo '${context.dir}'", "echo 'src/'"],
    ['echo $${HOME} $${x:-d}', 'echo ${HOME} ${x:-d}'],
    ['plain text', 'plain text'],
  ])('%s → %s', (template, script) => {
    expect(renderShell(template, s)).toEqual({ script, vars: {}, env: {} });
  });

  it('an undefined trusted value is an InterpolationError', () => {
    expect(() => renderShell('${context.nope}', s)).toThrow(InterpolationError);
  });
});

describe('data values never enter the script', () => {
  it.each([
    ['captured output', '${captured.x.output}', 'DATA'],
    ['captured stderr', '${captured.x.stderr}', 'ERR'],
    ['captured exit code', '${captured.x.exit_code}', '2'],
    ['prev output', '${prev.output}', 'P'],
    ['prev state', '${prev.state}', 'lint'],
    ['result verdict', '${result.verdict}', 'no'],
    ['result reason', '${result.details.reason}', "can't fix"],
    ['result number', '${result.details.confidence}', '0.5'],
    ['a default', '${captured.none.output:-fallback}', 'fallback'],
    ['hostile output', '${captured.evil.output}', EVIL],
  ])('%s becomes a variable', (_label, template, value) => {
    const out = renderShell(`echo ${template}`, s);
    expect(out).toEqual({ script: `echo ${V(1)}`, vars: { LL_V1: value }, env: {} });
  });

  it('hostile text never appears in the script in any quoting', () => {
    for (const template of [
      '${captured.evil.output}',
      '"${captured.evil.output}"',
      "'${captured.evil.output}'",
      '$(echo ${captured.evil.output})',
    ]) {
      const out = renderShell(template, s);
      expect(out.script).not.toContain('rm -rf');
      expect(out.script).not.toContain('pwned');
      expect(Object.values(out.vars)).toEqual([EVIL]);
    }
  });

  it('an undefined data value is an InterpolationError naming it', () => {
    expect(() => renderShell('echo ${captured.nope.output}', s)).toThrow(
      /undefined variable \$\{captured\.nope\.output\}/,
    );
  });

  it('numbers references in order, vars and env sharing one counter', () => {
    expect(
      renderShell('${captured.x.output} ${env.A} ${prev.output} ${context.dir} ${env.B:-b} ${captured.x.output}', s),
    ).toEqual({
      script: `${V(1)} ${E(2)} ${V(3)} src/ ${E(4)} ${V(5)}`,
      vars: { LL_V1: 'DATA', LL_V3: 'P', LL_V5: 'DATA' },
      env: { LL_E2: { name: 'A' }, LL_E4: { name: 'B', default: 'b' } },
    });
  });

  it('syntax errors are TemplateSyntaxError', () => {
    expect(() => renderShell('echo ${HOME}', s)).toThrow(TemplateSyntaxError);
  });
});

describe('env references', () => {
  it.each([
    ['echo ${env.HOME}', `echo ${E(1)}`, { LL_E1: { name: 'HOME' } }],
    ['echo ${env.TOKEN:-none}', `echo ${E(1)}`, { LL_E1: { name: 'TOKEN', default: 'none' } }],
    ['echo ${env.TOKEN:-}', `echo ${E(1)}`, { LL_E1: { name: 'TOKEN', default: '' } }],
    ['echo "${env.HOME}/x"', `echo "${E(1)}/x"`, { LL_E1: { name: 'HOME' } }],
    ["echo '${env.HOME}'", `echo '${SQ(E(1))}'`, { LL_E1: { name: 'HOME' } }],
  ])('%s', (template, script, env) => {
    expect(renderShell(template, s)).toEqual({ script, vars: {}, env });
  });
});

describe('references fit the quoting where they appear', () => {
  const ref = '${captured.x.output}';
  it.each([
    ['unquoted', `echo ${ref}`, `echo ${V(1)}`],
    ['double quotes', `echo "got: ${ref}!"`, `echo "got: ${V(1)}!"`],
    ['single quotes', `echo '${ref}'`, `echo '${SQ(V(1))}'`],
    ['the seed log line', `echo 'Fixed: ${ref}' >> .loops/fix.log`, `echo 'Fixed: ${SQ(V(1))}' >> .loops/fix.log`],
    ['after a closed single quote', `echo 'a' ${ref}`, `echo 'a' ${V(1)}`],
    ['after an escaped quote', `echo \\'${ref}`, `echo \\'${V(1)}`],
    ['after an escaped double quote in double quotes', `echo "a\\"${ref}"`, `echo "a\\"${V(1)}"`],
    ['a single quote inside double quotes', `echo "it's ${ref}"`, `echo "it's ${V(1)}"`],
    ['a double quote inside single quotes', `echo '"${ref}'`, `echo '"${SQ(V(1))}'`],
    ['$(…) unquoted', `x=$(grep ${ref} f)`, `x=$(grep ${V(1)} f)`],
    ['single quotes in $(…)', `x=$(grep '${ref}' f)`, `x=$(grep '${SQ(V(1))}' f)`],
    ['$(…) in double quotes', `echo "$(echo '${ref}')"`, `echo "$(echo '${SQ(V(1))}')"`],
    ['after $(…) closed', `echo $(cat f) '${ref}'`, `echo $(cat f) '${SQ(V(1))}'`],
    ['nested parentheses in $(…)', `echo $( (cd /; echo a) ) '${ref}'`, `echo $( (cd /; echo a) ) '${SQ(V(1))}'`],
    ['arithmetic $((…))', `echo $((1 + (2))) '${ref}'`, `echo $((1 + (2))) '${SQ(V(1))}'`],
    ['double quotes in $(…) in double quotes', `echo "$(printf "%s" '${ref}')"`, `echo "$(printf "%s" '${SQ(V(1))}')"`],
    ['backticks', "echo `echo '" + ref + "'`", "echo `echo '" + SQ(V(1)) + "'`"],
    ['after backticks', "echo `date` '" + ref + "'", "echo `date` '" + SQ(V(1)) + "'"],
    ["$'…' (ANSI-C)", `echo $'a\\n${ref}'`, `echo $'a\\n'"${V(1)}"$''`],
    ["after $'…' with an escaped quote", `echo $'it\\'s' '${ref}'`, `echo $'it\\'s' '${SQ(V(1))}'`],
    ['a comment with an apostrophe', `# don't\necho '${ref}'`, `# don't\necho '${SQ(V(1))}'`],
    ['an end-of-line comment with an apostrophe', `ls # don't\necho "${ref}"`, `ls # don't\necho "${V(1)}"`],
    ['# inside a word is not a comment', `echo a#b '${ref}'`, `echo a#b '${SQ(V(1))}'`],
    ['$# is not a comment', `echo $# '${ref}'`, `echo $# '${SQ(V(1))}'`],
    ['a reference in a comment', `echo ok # ${ref}`, `echo ok # ${V(1)}`],
    ['here-string unquoted', `cat <<< ${ref}`, `cat <<< ${V(1)}`],
    ['here-string double-quoted', `cat <<< "${ref}"`, `cat <<< "${V(1)}"`],
    ['here-string single-quoted', `cat <<< '${ref}'`, `cat <<< '${SQ(V(1))}'`],
    ['the line after a here-string', `cat <<< x\necho '${ref}'`, `cat <<< x\necho '${SQ(V(1))}'`],
    ['an unquoted heredoc body', `cat <<EOF\n${ref}\nEOF`, `cat <<EOF\n${V(1)}\nEOF`],
    [
      'an unquoted heredoc body with apostrophes',
      `cat <<EOF\nit's ${ref}\nEOF\necho '${ref}'`,
      `cat <<EOF\nit's ${V(1)}\nEOF\necho '${SQ(V(2))}'`,
    ],
    ['<< EOF with a space and a pipe', `cat << EOF | sort\ndon't ${ref}\nEOF`, `cat << EOF | sort\ndon't ${V(1)}\nEOF`],
    [
      '<<-EOF with a tab-indented delimiter',
      `cat <<-EOF\n\tit's ${ref}\n\tEOF\necho '${ref}'`,
      `cat <<-EOF\n\tit's ${V(1)}\n\tEOF\necho '${SQ(V(2))}'`,
    ],
    [
      'after a quoted heredoc has ended',
      `cat <<'EOF'\nliteral 'x\nEOF\necho '${ref}'`,
      `cat <<'EOF'\nliteral 'x\nEOF\necho '${SQ(V(1))}'`,
    ],
  ])('%s', (_label, template, script) => {
    const out = renderShell(template, s);
    expect(out.script).toBe(script);
    expect(Object.values(out.vars).every((v) => v === 'DATA')).toBe(true);
  });

  it.each([
    ["cat <<'EOF'\n${captured.evil.output}\nEOF", `cat <<'EOF'\n${EVIL}\nEOF`],
    ['cat <<"EOF"\n${captured.evil.output}\nEOF', `cat <<"EOF"\n${EVIL}\nEOF`],
    ['cat <<\\EOF\n${captured.evil.output}\nEOF', `cat <<\\EOF\n${EVIL}\nEOF`],
    ["cat <<-'END'\n\t${result.verdict}\n\tEND", "cat <<-'END'\n\tno\n\tEND"],
    [
      "cat <<'EOF' > f\nA ${captured.x.output} B\nEOF\necho ${captured.x.output}",
      `cat <<'EOF' > f\nA DATA B\nEOF\necho ${V(1)}`,
    ],
  ])('a data value in a quoted heredoc is written into its body as it is: %j', (template, script) => {
    expect(renderShell(template, s).script).toBe(script);
  });

  it('bash prints a spliced value in a quoted heredoc verbatim, whatever it holds', () => {
    const value = `${EVIL}\nsecond line $PATH\n  EOF  \nEOFX`;
    const out = renderShell("cat <<'EOF'\n${captured.v.output}\nEOF", withV(value));
    const printed = spawnSync('bash', ['-c', out.script], { encoding: 'utf8', cwd: tmpdir() });
    expect(printed.stdout).toBe(`${value}\n`);
  });

  it.each([
    ['a line of the value', "cat <<'EOF'\n${captured.v.output}\nEOF", 'x\nEOF\ntouch pwned'],
    ['its first line after text', "cat <<'EOF'\nEO${captured.v.output}\nEOF", 'F\ntouch pwned'],
    ['its last line before text', "cat <<'EOF'\n${captured.v.output}F\nEOF", 'x\nEO'],
    ['a tab-indented line in <<-', "cat <<-'END'\n${captured.v.output}\nEND", 'x\n\t\tEND\ntouch pwned'],
  ])('a value that would close its quoted heredoc is refused: %s', (_label, template, value) => {
    const run = () => renderShell(template, withV(value));
    expect(run).toThrow(InterpolationError);
    expect(run).toThrow(/\$\{captured\.v\.output\} ends its quoted here-document/);
  });

  it('the delimiter inside a longer line of the value does not close the heredoc', () => {
    const out = renderShell("cat <<'EOF'\n${captured.v.output}\nEOF", withV('EOF x\n EOF'));
    expect(out.script).toBe("cat <<'EOF'\nEOF x\n EOF\nEOF");
  });

  it('an env reference in a quoted heredoc is an InterpolationError: a secret is never written into the script', () => {
    expect(() => renderShell("cat <<'EOF'\n${env.HOME}\nEOF", s)).toThrow(/quoted here-document.*secret/);
  });

  it('trusted values may appear in a quoted heredoc', () => {
    expect(renderShell("cat <<'EOF'\n${context.dir}\nEOF", s).script).toBe("cat <<'EOF'\nsrc/\nEOF");
  });

  it('trusted code changes the quoting that follows it', () => {
    // context.quote is a lone "'": the data reference after it is inside single quotes.
    expect(renderShell("echo ${context.quote}${captured.x.output}'", s).script).toBe(`echo '${SQ(V(1))}'`);
    // The metric command closes its own quotes: the reference after it is unquoted.
    expect(renderShell('${context.metric_cmd} ${captured.x.output}', s).script).toBe(
      `ruff check | jq '.count' ${V(1)}`,
    );
  });

  it('the escape $${ is literal text and does not open anything', () => {
    expect(renderShell('echo $${x:-a} \'${captured.x.output}\' $${#arr[@]} "${captured.x.output}"', s).script).toBe(
      `echo \${x:-a} '${SQ(V(1))}' \${#arr[@]} "${V(2)}"`,
    );
  });
});

describe('quote tracking edge cases (once bugs)', () => {
  const ref = '${captured.x.output}';

  it(' a quoted heredoc inside $(…) is not recognised (value printed as a literal ${LL_V1})', () => {
    // Recognised, the value is written into the body (a variable would print as literal text).
    expect(renderShell(`git commit -m "$(cat <<'EOF'\nmsg ${ref}\nEOF\n)"`, s).script).toBe(
      `git commit -m "$(cat <<'EOF'\nmsg DATA\nEOF\n)"`,
    );
  });

  it(' an apostrophe in an unquoted heredoc inside $(…) is taken for a quote (value wrapped in \'"…"\')', () => {
    expect(renderShell(`echo "$(cat <<EOF\nit's ${ref}\nEOF\n)"`, s).script).toBe(
      `echo "$(cat <<EOF\nit's ${V(1)}\nEOF\n)"`,
    );
  });

  it(' a << shift in (( … )) starts a phantom heredoc that swallows the next lines', () => {
    expect(renderShell(`(( y = 1 << 2 ))\necho '${ref}'`, s).script).toBe(`(( y = 1 << 2 ))\necho '${SQ(V(1))}'`);
  });

  it(" an escaped \\$ before a quote is taken for $'…' (ANSI-C)", () => {
    expect(renderShell(`echo \\$'${ref}\\n'`, s).script).toBe(`echo \\$'${SQ(V(1))}\\n'`);
  });
});

describe('data in bash arithmetic is refused', () => {
  const ref = '${captured.x.output}';
  it.each([
    [`echo $(( ${ref} + 1 ))`],
    [`(( ${ref} > 3 )) && echo big`],
    [`if [[ ${ref} -eq 0 ]]; then echo zero; fi`],
    [`[[ "${ref}" -gt 2 ]]`],
    [`echo "$(( ${ref} * 2 ))"`],
  ])('%s', (template) => {
    expect(() => renderShell(template, s)).toThrow(/arithmetic/);
  });

  it.each([
    [`[ "${ref}" -eq 0 ] && echo zero`],
    [`[[ -n "${ref}" ]] && echo set`],
    [`[[ "${ref}" == ok ]]`],
    [`echo $(( 1 + 2 )) "${ref}"`],
    [`(( n = 1 << 2 )); echo '${ref}'`],
  ])('allows %s', (template) => {
    expect(() => renderShell(template, s)).not.toThrow();
  });

  it('context values (author code) may be used in arithmetic', () => {
    expect(() => renderShell('echo $(( ${state.iteration} + 1 ))', s)).not.toThrow();
  });
});

describe("the original's :shell modifier", () => {
  it('a context value with :shell is data and one word', () => {
    expect(renderShell('cmd ${context.metric_cmd:shell} --x', s)).toEqual({
      script: `cmd "${V(1)}" --x`,
      vars: { LL_V1: "ruff check | jq '.count'" },
      env: {},
    });
  });

  it('inside quotes it is the variable as other data is', () => {
    expect(renderShell(`echo "a \${captured.evil.output:shell}" '\${context.dir:shell}'`, s)).toEqual({
      script: `echo "a ${V(1)}" '${SQ(V(2))}'`,
      vars: { LL_V1: EVIL, LL_V2: 'src/' },
      env: {},
    });
  });
});
