// objectgraph-bench: times ObjectGraph against hand-written GRDB on the same machine, in one run, and
// prints each time and the ratio ObjectGraph / GRDB. See ../../README.md.
//
// Usage: objectgraph-bench [--count N] [--only crud,stall,save,migration,paged,child,batch,
//   dictionary,batchupdate] [--batch-size N]
//   (default 100000, all, 1000; CI smoke: --count 2000)
//
// Exit code: 0 whatever the ratios (this is a report); 1 when a step throws or the two sides disagree on
// the data they read back; 2 for a bad command line.

import Foundation

let exitCode = BenchmarkCommand.run(arguments: Array(CommandLine.arguments.dropFirst()))
exit(exitCode)
