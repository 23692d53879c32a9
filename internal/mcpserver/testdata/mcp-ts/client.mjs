// client.mjs drives clada's MCP server (clada-mcp, what `clada mcp`
// starts) with the official TypeScript SDK's client
// (@modelcontextprotocol/sdk, pinned in package.json), so that clada's
// server is not only tested against the Go SDK it is built on. It runs the
// flows of cmd/clada-mcp/mcpserver/e2e_test.go once: tools listed; check and run; a
// denial as isError; elicitation accept, decline and always; a job that
// goes to the background and finishes; kill; disconnect kills the jobs.
//
//   node client.mjs CLADA_MCP WORKDIR TRUST
//
// CLADA_MCP is the clada-mcp executable, WORKDIR an empty directory for the
// project roots, TRUST a program that trusts a root's .clada files as they
// are (as the person does with clada trust) after the client wrote them;
// CLADA_STATE_DIR, where trust is recorded, is passed on to both. Prints "ok FLOW" per flow that passed and exits 0 when
// all did; a failed check prints "FAIL FLOW: what" and exits 1.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const [server, workdir, trust] = process.argv.slice(2);
if (!server || !workdir || !trust) {
  console.error('usage: node client.mjs CLADA_MCP WORKDIR TRUST');
  process.exit(2);
}
const stateDir = process.env.CLADA_STATE_DIR ?? '';

// writeCommands writes the root's commands.toml as the person would, and
// trusts it.
function writeCommands(root, text) {
  fs.writeFileSync(path.join(root, '.clada', 'commands.toml'), text);
  execFileSync(trust, [root], { env: { CLADA_STATE_DIR: stateDir } });
}

class Failure extends Error {}
function check(ok, what, detail) {
  if (!ok) {
    throw new Failure(`${what}${detail === undefined ? '' : '\n' + (typeof detail === 'string' ? detail : JSON.stringify(detail, null, 1))}`);
  }
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let roots = 0;
// newRoot makes a project root with .clada/ and the given files
// (name → [content, mode]).
function newRoot(files = {}) {
  const root = path.join(workdir, `root${++roots}`);
  fs.mkdirSync(path.join(root, '.clada'), { recursive: true });
  for (const [name, [content, mode]] of Object.entries(files)) {
    fs.writeFileSync(path.join(root, name), content, { mode });
  }
  return root;
}

// connect starts `clada-mcp --root root` and connects a client to it;
// elicit, when given, answers clada's questions.
async function connect(root, elicit) {
  const transport = new StdioClientTransport({
    command: server,
    args: ['--root', root],
    cwd: root,
    env: { HOME: '/no-home', CI: '', CLADA_STATE_DIR: stateDir, GORACE: `${process.env.GORACE ?? ''} atexit_sleep_ms=0` },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr.on('data', (d) => { stderr += d; });
  const client = new Client({ name: 'clada-ts-test', version: '0' }, elicit ? { capabilities: { elicitation: {} } } : {});
  const asked = [];
  if (elicit) {
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params);
      return elicit(req.params);
    });
  }
  await client.connect(transport);
  return {
    client, transport, asked, stderr: () => stderr,
    async call(name, args) {
      const res = await client.callTool({ name, arguments: args }, undefined, { timeout: 30000 });
      res.text = (res.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('');
      res.out = res.structuredContent ?? {};
      return res;
    },
  };
}

// alive reports whether a process exists (and is no zombie of ours).
function alive(pid) {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return e.code === 'EPERM';
  }
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function waitFor(what, cond, ms = 10000) {
  for (const deadline = Date.now() + ms; ; await sleep(50)) {
    if (await cond()) return;
    check(Date.now() < deadline, `${what} within ${ms} ms`);
  }
}

async function readPid(file) {
  await waitFor(`${path.basename(file)} written`, () => fs.existsSync(file) && fs.readFileSync(file, 'utf8').endsWith('\n'));
  return Number(fs.readFileSync(file, 'utf8').trim());
}

const flows = {
  async 'tools listed'() {
    const s = await connect(newRoot());
    const { tools } = await s.client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    check(JSON.stringify(Object.keys(byName).sort()) === '["check","kill","output","run"]', 'the four tools', Object.keys(byName));
    check(byName.check.annotations?.readOnlyHint === true, 'check is annotated read-only', byName.check.annotations);
    check(byName.run.annotations?.readOnlyHint !== true && byName.run.annotations?.idempotentHint !== true,
      'run is neither read-only nor idempotent', byName.run.annotations);
    check(JSON.stringify(byName.run.inputSchema.required) === '["command"]', 'run requires command', byName.run.inputSchema);
    for (const f of ['command', 'dir', 'background_after']) {
      check(f in byName.run.inputSchema.properties, `run takes ${f}`, byName.run.inputSchema);
    }
    check(byName.check.outputSchema?.properties?.decision, 'check declares decision in its output schema', byName.check.outputSchema);
    await s.client.close();
  },

  async 'check and run'() {
    const root = newRoot({ 'a.txt': ['hello\n', 0o644] });
    const s = await connect(root);
    let res = await s.call('check', { command: 'cat a.txt' });
    check(!res.isError && res.out.decision === 'allow' && JSON.stringify(res.out.argv) === '["cat","a.txt"]', 'check cat a.txt allows', res);
    res = await s.call('check', { command: 'touch made' });
    check(res.out.decision === 'allow' && !fs.existsSync(path.join(root, 'made')), 'check runs nothing', res);
    res = await s.call('run', { command: 'cat a.txt' });
    check(!res.isError && res.out.exit_code === 0 && res.out.stdout === 'hello\n' && res.text.includes('hello'), 'run cat a.txt', res);
    check(!('job' in res.out), 'a quick command has no job', res.out);
    res = await s.call('run', { command: 'touch made' });
    check(!res.isError && fs.existsSync(path.join(root, 'made')), 'run touch made ran it', res);
    await s.client.close();
  },

  async 'deny as isError'() {
    const root = newRoot();
    const s = await connect(root);
    let res = await s.call('check', { command: 'cat $HOME' });
    check(!res.isError && res.out.decision === 'deny' && res.out.rule === 'expansion' && res.out.advice, 'check cat $HOME denies', res);
    for (const [command, rule] of [['cat $HOME', 'expansion'], ['ls | touch made &', 'shell-syntax'], ['sudo touch made', 'hard-block']]) {
      res = await s.call('run', { command });
      check(res.isError === true && res.out.decision === 'deny' && res.out.rule === rule && res.out.status === 'denied',
        `run ${command} is an isError denial by ${rule}`, res);
      check(res.text.includes(rule), `the text of ${command}'s denial names ${rule}`, res.text);
    }
    check(!fs.existsSync(path.join(root, 'made')), 'nothing denied ran');
    await s.client.close();
  },

  async 'elicitation accept, decline, always'() {
    const schema = { type: 'object', properties: { answer: { type: 'string', enum: ['yes', 'no', 'always', 'never'] } }, required: ['answer'] };
    for (const [name, reply, wantRun, wantAllowed] of [
      ['accept yes', { action: 'accept', content: { answer: 'yes' } }, true, false],
      ['decline', { action: 'decline' }, false, false],
      ['accept always', { action: 'accept', content: { answer: 'always' } }, true, true],
    ]) {
      const root = newRoot({ 'mark.sh': ['#!/bin/sh\necho ran >> marks\n', 0o755] });
      const s = await connect(root, () => reply);
      const res = await s.call('run', { command: './mark.sh' });
      check(s.asked.length === 1, `${name}: asked once`, s.asked);
      check(JSON.stringify(s.asked[0].requestedSchema) === JSON.stringify(schema), `${name}: the fixed answer schema`, s.asked[0]);
      check(s.asked[0].message.includes('./mark.sh') && s.asked[0].message.includes('not in clada\'s specs'),
        `${name}: the question shows the command and why`, s.asked[0].message);
      const marks = path.join(root, 'marks');
      check(fs.existsSync(marks) === wantRun, `${name}: ran = ${wantRun}`, res);
      check(!!res.isError === !wantRun, `${name}: isError = ${!wantRun}`, res);
      if (!wantRun) {
        check(res.isError === true && res.out.status === 'not-approved' && res.out.not_approved === 'declined in the MCP client',
          `${name}: not approved, declined in the client`, res);
      }
      const toml = path.join(root, '.clada', 'commands.toml');
      const written = fs.existsSync(toml) ? fs.readFileSync(toml, 'utf8') : '';
      check(wantAllowed ? /allowed = \[\n  ['"]\.\/mark\.sh['"]/.test(written) : written === '', `${name}: commands.toml`, written);
      if (wantAllowed) {
        const again = await s.call('run', { command: './mark.sh' });
        check(!again.isError && s.asked.length === 1, `${name}: the same command runs again unasked`, again);
        check(fs.readFileSync(marks, 'utf8') === 'ran\nran\n', `${name}: it ran twice`);
      }
      await s.client.close();
    }
  },

  async 'background job finishes'() {
    const root = newRoot({ 'slow.sh': ['#!/bin/sh\necho start $1\nsleep $1\necho end $1\n', 0o755] });
    writeCommands(root, "allowed = ['./slow.sh *']\n");
    const s = await connect(root);
    let res = await s.call('run', { command: './slow.sh 0.5', background_after: 0.2 });
    const job = res.out.job;
    check(!res.isError && Number.isInteger(job) && res.out.status === 'running' && res.text.includes(`job ${job}: running`),
      'run went to the background with a job id', res);
    await waitFor('the job to finish', async () => {
      res = await s.call('output', { job });
      check(!res.isError && res.out.job === job, 'output of the job', res);
      return res.out.status !== 'running';
    });
    check(res.out.status === 'exited' && res.out.exit_code === 0 && res.out.stdout === 'start 0.5\nend 0.5\n' && res.text.includes('end 0.5'),
      'the finished job\'s output', res);
    check(typeof res.out.stdout_file === 'string' && fs.readFileSync(path.join(root, res.out.stdout_file), 'utf8') === 'start 0.5\nend 0.5\n',
      'the saved stdout file', res.out);
    res = await s.call('output', { job: 99 });
    check(res.isError && res.text.includes('no job 99'), 'output of an unknown job', res);
    await s.client.close();
  },

  async 'kill'() {
    const root = newRoot({ 'spawn.sh': ['#!/bin/sh\nsleep 60 &\necho $! > bg.pid\necho $$ > fg.pid\necho spawned\nsleep 60\n', 0o755] });
    writeCommands(root, "allowed = ['./spawn.sh']\n");
    const s = await connect(root);
    let res = await s.call('run', { command: './spawn.sh', background_after: 0.2 });
    const job = res.out.job;
    check(Number.isInteger(job) && res.out.status === 'running', 'spawn.sh went to the background', res);
    const bg = await readPid(path.join(root, 'bg.pid'));
    const fg = await readPid(path.join(root, 'fg.pid'));
    res = await s.call('kill', { job });
    check(res.out.status === 'killed' && res.text.includes('stopped (by the kill tool)'), 'kill reports the job killed', res);
    await waitFor('the job and its grandchild to be gone', () => !alive(bg) && !alive(fg));
    res = await s.call('kill', { job });
    check(!res.isError && res.out.status === 'killed' && res.text.includes('had already ended'), 'kill of an ended job', res);
    await s.client.close();
  },

  async 'disconnect kills jobs'() {
    const root = newRoot({ 'spawn.sh': ['#!/bin/sh\nsleep 60 &\necho $! > bg.pid\necho $$ > fg.pid\necho spawned\nsleep 60\n', 0o755] });
    writeCommands(root, "allowed = ['./spawn.sh']\n");
    const s = await connect(root);
    const res = await s.call('run', { command: './spawn.sh', background_after: 0.2 });
    check(Number.isInteger(res.out.job), 'spawn.sh went to the background', res);
    const bg = await readPid(path.join(root, 'bg.pid'));
    const fg = await readPid(path.join(root, 'fg.pid'));
    const server = s.transport.pid;
    // End the server's stdin as a client that goes away does, and give it
    // 10 s to exit on its own. (The SDK's close would send SIGTERM after
    // 2 s, which a loaded machine could reach before clada exits.)
    const proc = s.transport._process;
    const exited = new Promise((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })));
    const start = Date.now();
    proc.stdin.end();
    const ended = await Promise.race([exited, sleep(10000).then(() => null)]);
    const took = Date.now() - start;
    check(ended !== null && ended.code === 0 && ended.signal === null,
      `clada mcp exits 0 on stdin EOF (after ${took} ms: ${JSON.stringify(ended)})`, s.stderr());
    await s.client.close();
    check(!alive(server), 'the server is gone');
    await waitFor('the jobs\' processes to be gone after the disconnect', () => !alive(bg) && !alive(fg));
  },
};

// The flows are independent (each has its own root and server), so they
// run at once: the test takes as long as the slowest flow, not the sum.
let failed = false;
await Promise.all(Object.entries(flows).map(async ([name, run]) => {
  try {
    await run();
    console.log(`ok ${name}`);
  } catch (e) {
    failed = true;
    console.log(`FAIL ${name}: ${e instanceof Failure ? e.message : e.stack}`);
  }
}));
process.exit(failed ? 1 : 0);
