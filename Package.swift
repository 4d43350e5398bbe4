// swift-tools-version:6.0
import PackageDescription

// cachebench has no package dependencies by design: only what the Swift toolchain ships.
let package = Package(
    name: "cachebench",
    // The app caches (Cache, DiskCache) run back to iOS 13 and macOS 10.15, the first with Swift concurrency.
    platforms: [.macOS(.v10_15), .iOS(.v13), .tvOS(.v13), .watchOS(.v6)],
    products: [
        .library(name: "EvictionPolicies", targets: ["EvictionPolicies"]),
        .library(name: "CacheBench", targets: ["CacheBench"]),
        // The command line as a library: an executable of one's own runs it over more policies.
        .library(name: "CacheBenchCommandLine", targets: ["CacheBenchCommandLine"]),
        .executable(name: "cachebench", targets: ["cachebench"]),
    ],
    targets: [
        // A header of static inline C: the prefetch and cycle-counter instructions Swift cannot spell.
        .target(name: "_CSupport"),
        .target(name: "EvictionPolicies", dependencies: ["_CSupport"]),
        .target(name: "CacheBench", dependencies: ["EvictionPolicies", "_CSupport"]),
        .target(name: "CacheBenchCommandLine", dependencies: ["CacheBench", "EvictionPolicies"]),
        .executableTarget(name: "cachebench", dependencies: ["CacheBenchCommandLine", "CacheBench"]),
        // The "Writing a policy" article's example: a policy defined only here, run by every subcommand.
        .executableTarget(name: "example-policy", dependencies: ["CacheBenchCommandLine", "CacheBench", "EvictionPolicies"]),
        // Scripts/bench runs it: EvictionPolicies as an app uses it, against NSCache and a typical Swift LRU.
        .executableTarget(name: "library-benchmark", dependencies: ["EvictionPolicies", "_CSupport"]),
        // The DiskCache kill test runs it and kills it with SIGKILL at random moments.
        .executableTarget(name: "disk-cache-crash-writer", dependencies: ["EvictionPolicies"]),
        // CI builds it under ThreadSanitizer and runs it: the shared caches hammered from several threads.
        .executableTarget(name: "cache-stress", dependencies: ["EvictionPolicies"]),
        // The tests' one toolkit: the seeded generator, the eviction recorder, the differential harness.
        .target(name: "TestSupport", dependencies: ["EvictionPolicies"], path: "Tests/TestSupport"),
        .testTarget(name: "EvictionPoliciesTests", dependencies: ["EvictionPolicies", "TestSupport"]),
        .testTarget(name: "CacheBenchTests", dependencies: ["CacheBench", "CacheBenchCommandLine", "EvictionPolicies", "TestSupport"]),
        .testTarget(name: "EndToEndTests",
                    dependencies: ["cachebench", "example-policy", "disk-cache-crash-writer", "EvictionPolicies", "TestSupport"]),
    ]
)
