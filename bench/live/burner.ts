// Burns CPU on a schedule: `node burner.js <schedule.json>`, the schedule being [offset ms, CPU ms]
// slots measured from another process. Started at the same moment as a replay, it puts the same
// load on the machine's cores as that process did, without asking the broker for anything.
import fs from 'node:fs';

const schedule = JSON.parse(fs.readFileSync(process.argv[2]!, 'utf8')) as [number, number][];
const start = Date.now();
for (const [offsetMs, cpuMs] of schedule) {
  while (Date.now() < start + offsetMs) {
    // Sleeping between slots: Atomics.wait blocks this thread without spinning.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.max(1, start + offsetMs - Date.now()));
  }
  const until = process.cpuUsage();
  const target = (until.user + until.system) / 1000 + cpuMs;
  for (;;) {
    const now = process.cpuUsage();
    if ((now.user + now.system) / 1000 >= target) break;
  }
}
