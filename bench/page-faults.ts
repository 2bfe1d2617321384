// What touching fresh memory costs on this machine: a Buffer's pages written for the first time (each a
// page fault, the kernel mapping a zeroed page) against the same pages written again. A store that keeps
// bytes for every finished task pays the first figure once per page it fills; bare h3 and row (f) keep nothing.
//   node --import tsx bench/page-faults.ts
const PAGE = 4096;
for (const mb of [1, 16, 64]) {
  const size = mb << 20;
  let first = 0;
  let again = 0;
  const rounds = 6;
  for (let r = 0; r < rounds; r++) {
    const bytes = Buffer.allocUnsafeSlow(size);
    let t = process.hrtime.bigint();
    for (let i = 0; i < size; i += PAGE) bytes[i] = 1;
    first += Number(process.hrtime.bigint() - t);
    t = process.hrtime.bigint();
    for (let i = 0; i < size; i += PAGE) bytes[i] = 2;
    again += Number(process.hrtime.bigint() - t);
  }
  const pages = (size / PAGE) * rounds;
  console.log(`${mb} MB buffers: first write ${(first / pages / 1000).toFixed(2)} µs per page, written again ${(again / pages / 1000).toFixed(3)} µs per page`);
}
