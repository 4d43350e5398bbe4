import CacheBench
@testable import CacheBenchCommandLine
import EvictionPolicies
import TestSupport
import Testing

@Suite("replay --tier: a memory policy in front of a disk policy")
struct TieredReplayTests {
    /// `json[a][b]…` as an integer, or nil.
    func int(_ value: JSONValue, _ path: String...) -> Int? {
        var current = value
        for name in path {
            guard case .object(let fields) = current, let next = fields.first(where: { $0.0 == name })?.1 else { return nil }
            current = next
        }
        if case .int(let n) = current { return n }
        return nil
    }

    let trace = """
    timestamp,key,size,op
    0,1,6,get
    1,2,6,get
    2,1,6,get
    3,2,6,get
    4,,,background
    5,1,6,get
    """

    @Test("memory hits, disk hits and misses apart; hits = memory + disk; each tier's evictions")
    func sourcesAndEvictions() throws {
        // yy-lru (10 bytes) over sd-disk (100 bytes). 0 and 1: misses, stored in both; 12 > 10
        // queues a trim. 2: the trim takes 1, so 1 is a disk hit, copied into memory (12 again);
        // 3: likewise for 2; 4: the queued trim takes 1, the background purge takes 2; the disk
        // clean-up finds 12 <= 100. 5: a disk hit.
        let path = try temporaryFile(trace)
        var job = ReplayJob(trace: TraceSpec(path: path), policy: "yy-lru", capacity: 10)
        job.tier = TierJob(disk: "sd-disk", diskCapacity: 100)
        let result = try Replay.run(job)
        let tiers = try #require(result.tiers)
        #expect(result.policy == "memory=yy-lru,disk=sd-disk")
        #expect(result.requests == 5 && result.hits == 3 && result.misses == 2)
        #expect(tiers.memory.hits == 0 && tiers.disk.hits == 3 && tiers.disk.byteHits == 18)
        #expect(tiers.memory.evictions == 4 && tiers.disk.evictions == 0 && result.counters.evictions == 4)
        #expect(tiers.memory.trimDeferred.count == 3 && tiers.memory.trimCaller.count == 1)
        #expect(tiers.disk.entries == 2 && tiers.disk.bytes == 12 && tiers.memory.entries == 1)
        #expect(tiers.memoryCost == "size" && tiers.disk.capacity == 100 && tiers.disk.capacitySource == .option)
        let json = result.json
        #expect(int(json, "hits") == 3)
        #expect(int(json, "tiers", "memory", "hits") == 0 && int(json, "tiers", "disk", "hits") == 3)
        #expect(int(json, "tiers", "memory", "trim", "deferred", "count") == 3)
        #expect(int(json, "evictions") == 4 && int(json, "trim", "count") == 4)
    }

    @Test("--tier-promote-cost zero, as YYCache's facade: memory copies cost nothing, so the cost limit never trims")
    func zeroCost() throws {
        let path = try temporaryFile(trace)
        var job = ReplayJob(trace: TraceSpec(path: path), policy: "yy-lru", capacity: 10)
        job.tier = TierJob(disk: "sd-disk", diskCapacity: 100, memoryCost: .zero)
        let result = try Replay.run(job)
        let tiers = try #require(result.tiers)
        #expect(tiers.memory.hits == 2 && tiers.disk.hits == 1 && tiers.memory.bytes == 0)
        #expect(tiers.memory.evictions == 2, "only the background purge")
        #expect(tiers.memoryCost == "zero")
    }

    @Test("the disk tier's timers fire in trace time after its last call: yy-disk's 60 s ticks")
    func diskTimers() throws {
        let path = try temporaryFile("""
        timestamp,key,size,op
        0,1,5,get
        0,2,5,get
        0,3,5,get
        200,,,tick
        """)
        var job = ReplayJob(trace: TraceSpec(path: path), policy: "lru", capacity: 100)
        job.tier = TierJob(disk: "yy-disk", diskCapacity: 1000, diskCountLimit: 1)
        let result = try Replay.run(job)
        let tiers = try #require(result.tiers)
        #expect(tiers.disk.evictions == 2 && tiers.disk.entries == 1 && tiers.disk.trimDeferred.count == 1)
        #expect(tiers.disk.policyMetrics == [PolicyMetric("inlineEntries", 1), PolicyMetric("fileEntries", 0),
                                             PolicyMetric("inlineWrites", 3), PolicyMetric("fileWrites", 0)])
    }

    @Test("without a disk capacity, the disk tier gets the policy's default (10% of the working set)")
    func diskDefaultCapacity() throws {
        var job = ReplayJob(trace: TraceSpec(path: Repository.trace("image-feed.csv")), policy: "sd-memory", capacity: 100 << 20)
        job.tier = TierJob(disk: "sd-disk")
        let result = try Replay.run(job)
        let tiers = try #require(result.tiers)
        #expect(tiers.disk.capacitySource == .workingSet && tiers.disk.capacity == 27_930_878_640 / 10)
        #expect(tiers.memory.hits + tiers.disk.hits == result.hits && result.hits > 0)
        #expect(tiers.disk.trimDeferred.count == 3, "one clean-up per background")
    }

    @Test("a tiered run matches the TieredModel driven by hand over the same trace")
    func matchesLibrary() throws {
        let path = Repository.trace("image-feed.csv")
        var job = ReplayJob(trace: TraceSpec(path: path), policy: "nuke-clock", capacity: 200 << 20)
        job.tier = TierJob(disk: "yy-disk", diskCapacity: 1 << 30, diskOptions: PolicyOptions(["age-limit": "600"]))
        let result = try Replay.run(job)
        var cache = TieredModel(memory: try NukeClockCache<UInt64, Void>(capacity: 200 << 20),
                                disk: ObservedTier(try YYDiskCache<UInt64, Void>(limits: CacheLimits(capacity: 1 << 30),
                                                                                 options: PolicyOptions(["age-limit": "600"])),
                                                   observer: IgnoringObserver()))
        var reader = try TraceSpec(path: path).open()
        var batch: [Request] = []
        var memoryHits = 0, diskHits = 0
        var observer = IgnoringObserver<UInt64, Void>()
        while try reader.nextBatch(&batch) {
            for request in batch {
                cache.advance(to: request.time, observer: &observer)
                switch request.operation {
                case .get:
                    switch cache.access(request.key, cost: request.size, orInsert: (), observer: &observer) {
                    case .memory: memoryHits += 1
                    case .disk: diskHits += 1
                    case nil: break
                    }
                case .memoryWarning: cache.handle(.memoryWarning, observer: &observer)
                case .background: cache.handle(.background, observer: &observer)
                default: break
                }
            }
        }
        cache.synchronizeDisk()
        let tiers = try #require(result.tiers)
        #expect(tiers.memory.hits == memoryHits && tiers.disk.hits == diskHits)
        #expect(tiers.disk.entries == cache.disk.policy.count && tiers.memory.entries == cache.memory.count)
        #expect(diskHits > 0 && memoryHits > 0)
    }

    @Test("compare --tier runs each pair at each memory capacity from one read, exactly as replay --tier")
    func compare() throws {
        let trace = TraceSpec(path: Repository.trace("image-feed.csv"))
        let pairs = [TierPair(memory: "yy-lru", tier: TierJob(disk: "yy-disk", diskCapacity: 1 << 30, memoryCost: .zero)),
                     TierPair(memory: "sd-memory", tier: TierJob(disk: "sd-disk", diskCapacity: 1 << 30))]
        var job = CompareJob(trace: trace, policies: ["nuke-clock"], capacities: try CapacityList.parse("50MiB,200MiB"),
                             options: PolicyOptions(["weak-cache": "true"]), threads: 2)
        job.tiers = pairs
        let result = try Compare.run(job)
        #expect(result.results.map(\.policy) == ["nuke-clock", "nuke-clock", "memory=yy-lru,disk=yy-disk", "memory=yy-lru,disk=yy-disk",
                                                 "memory=sd-memory,disk=sd-disk", "memory=sd-memory,disk=sd-disk"])
        for compared in result.results.dropFirst(2) {
            let pair = try #require(pairs.first { $0.name == compared.policy })
            var replay = ReplayJob(trace: trace, policy: pair.memory, capacity: compared.capacity)
            replay.tier = pair.tier
            if pair.memory == "sd-memory" { replay.options = PolicyOptions(["weak-cache": "true"]) }
            let alone = try Replay.run(replay)
            #expect(compared.counters == alone.counters, "\(compared.policy) at \(compared.capacity ?? 0)")
            #expect(compared.tiers?.memory.hits == alone.tiers?.memory.hits && compared.tiers?.disk.hits == alone.tiers?.disk.hits)
            #expect(compared.tiers?.disk.policyMetrics == alone.tiers?.disk.policyMetrics)
            #expect(compared.tiers?.memory.policyMetrics == alone.tiers?.memory.policyMetrics)
        }
        #expect(result.results[4].tiers?.memory.policyMetrics.first?.value ?? 0 > 0, "the weak map served some gets")
        let json = result.json.serialized()
        #expect(json.contains("\"tiers\"") && json.contains("\"memoryCost\": \"zero\""))
        job.tiers = [TierPair(memory: "belady", tier: TierJob(disk: "sd-disk"))]
        #expect(throws: CacheBenchError.self) { try Compare.run(job) }
    }

    @Test("compare --tier: a capacity the memory tier refuses leaves that run out with a note, as for a policy")
    func refusedTierCapacity() throws {
        var job = CompareJob(trace: TraceSpec(path: Repository.trace("lirs-cs.csv")), policies: [],
                             capacities: CapacityList([.size(1), .size(100)]), ignoreSize: true, threads: 1)
        job.tiers = [TierPair(memory: "lirs", tier: TierJob(disk: "sd-disk"))]
        let result = try Compare.run(job)
        #expect(result.results.map { "\($0.policy) \($0.capacity ?? 0)" } == ["memory=lirs,disk=sd-disk 100"])
        #expect(result.refusals.map { "\($0.policy) \($0.capacity ?? 0)" } == ["memory=lirs,disk=sd-disk 1"])
        #expect(result.notes.contains { $0.hasPrefix("memory=lirs,disk=sd-disk at capacity 1: not run") }, "\(result.notes)")
        job.capacities = CapacityList([.size(1), .size(2)])
        #expect(throws: CacheBenchError.self) { try Compare.run(job) }
    }

    @Test("a single replay reports the policy's own metrics")
    func policyMetrics() throws {
        let path = try temporaryFile(trace)
        let result = try Replay.run(ReplayJob(trace: TraceSpec(path: path), policy: "yy-disk", capacity: 1000))
        #expect(result.policyMetrics.map(\.name) == ["inlineEntries", "fileEntries", "inlineWrites", "fileWrites"])
        #expect(int(result.json, "policyMetrics", "inlineEntries") == 2)
        let lru = try Replay.run(ReplayJob(trace: TraceSpec(path: path), policy: "lru", capacity: 1000))
        #expect(lru.policyMetrics.isEmpty && lru.tiers == nil)
        guard case .object(let fields) = lru.json else { Issue.record("not an object"); return }
        #expect(fields.map(\.0).contains("policyMetrics") && !fields.map(\.0).contains("tiers"))
    }

    @Test("usage errors: offline policies, threads, unknown names")
    func usage() throws {
        let path = try temporaryFile(trace)
        for (memory, disk, threads) in [("belady", "yy-disk", 1), ("yy-lru", "belady", 1), ("yy-lru", "yy-disk", 2),
                                        ("yy-lru", "floppy", 1)] {
            var job = ReplayJob(trace: TraceSpec(path: path), policy: memory, capacity: 10)
            job.tier = TierJob(disk: disk, diskCapacity: 10)
            job.threads = threads
            #expect(throws: CacheBenchError.self) { try Replay.run(job) }
        }
        var job = ReplayJob(trace: TraceSpec(path: path), policy: "yy-lru", capacity: 10)
        job.tier = TierJob(disk: "pin-memory", diskCountLimit: 3)
        #expect(throws: CacheBenchError.self, "pin-memory has no count limit") { try Replay.run(job) }
        #expect(throws: UsageError.self) { try TierJob.parseTiers("memory=yy-lru") }
        #expect(throws: UsageError.self) { try TierJob.parseTiers("memory=a,memory=b") }
        #expect(try TierJob.parseTiers("disk=yy-disk,memory=yy-lru") == ("yy-lru", "yy-disk"))
    }
}
