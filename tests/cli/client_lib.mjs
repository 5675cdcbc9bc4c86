// client_lib.mjs — what the MCP test clients of tests/cli share: where the packages of tests/npm
// are (installed by `make test-deps`; the clients run from the repository root), and the tally
// each prints: a "FAIL NAME: why" line per failed check, then "client: N passed, N failed" last
// (finish), exiting 1 after a failure.
import { pathToFileURL } from 'node:url';

export const npm = `${process.cwd()}/tests/npm/node_modules`;
// A module of tests/npm by its path below node_modules.
export const load = (p) => import(pathToFileURL(`${npm}/${p}`).href);

let pass = 0, fail = 0;
export const check = (cond, name, why = '') => {
  if (cond) { pass++; } else { fail++; console.log(`FAIL ${name}${why ? ': ' + why : ''}`); }
};
export const finish = () => {
  console.log(`client: ${pass} passed, ${fail} failed`);
  process.exit(fail ? 1 : 0);
};
