// CPU of the processes this one started and waited for (and theirs), for the test-timing table
// (test/runner/run-tests.ts, test/support/file-timings.ts): Node reports only its own.
import { readFileSync } from 'node:fs';

/** Seconds of CPU of this process's waited-for children: cutime + cstime of /proc/self/stat (Linux; 0 elsewhere). */
export function childrenCpuSeconds(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // Fields 16 and 17 of proc(5), in clock ticks; counted from field 3, the one after the ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return 0;
  }
}
