import CacheBench
import CacheBenchCommandLine
import Foundation

// The command line lives in the CacheBenchCommandLine library, so an executable of one's own
// can run it over more policies (see Sources/example-policy).
exit(CacheBenchCommandLine.main(registry: .standard))
