import CacheBench

/// The options of ``RequestWindow`` that `replay`, `compare` and `mrc` share: warm-up, cap,
/// sampling and report intervals.
enum WindowOptions {
    static let valueOptions: Set<String> = ["--warmup", "--max-requests", "--sample", "--sample-seed", "--report-interval"]

    static let help = """
      --warmup SPAN           Requests that fill the cache before counting starts: Nreq (the
                              trace's first N rows as --max-requests counts them, e.g.
                              100000req) or a duration of trace time
                              (30s, 15m, 2h, 1d; as libCacheSim's --warmup-sec, a row at exactly
                              that time after the first request still warms). The report says how many
                              requests warmed. A warm-up as long as the trace or longer is an
                              error (exit 65).
      --max-requests N        Read only the trace's first N rows, gets, sets and deletes alike
                              (warm-up included; size-0 rows, which are skipped, and event rows
                              not counted: libCacheSim's -n). Nothing after them is read.
      --sample RATIO          Spatial sampling as SHARDS does: keep the keys whose 64-bit hash is
                              below RATIO·2^64 (0.01 or 1% keeps a hundredth of the keys, with all
                              their requests) and scale the capacity and count limit by RATIO
                              (rounded, at least 1: sampledCapacity in the report), and sizes given
                              in --option (preferred=60MiB) with it; the report gives both. RATIO is above 0 and at most 1. Row counts above count the
                              trace's rows before sampling.
      --sample-seed N         Which sample --sample draws (default 0): each seed hashes the keys
                              differently, so runs with a few seeds show how much an estimate
                              depends on the keys that happened to be kept.
      --report-interval SPAN  Miss ratio and byte miss ratio per interval after the warm-up, every
                              Nreq rows (counted as --max-requests counts them) or every
                              duration (as --warmup), in the JSON report
                              (window.intervals).
                              These five are not combined with --tier, nor in replay with
                              --threads.
    """

    /// The window the arguments describe.
    static func parse(_ arguments: Arguments) throws(UsageError) -> RequestWindow {
        var window = RequestWindow()
        window.warmup = try arguments.value("--warmup").map { (text) throws(UsageError) in
            try parseValue(text, of: "--warmup") { (text) throws(InvalidValueError) in try TraceSpan.parse(text) }
        }
        window.reportInterval = try arguments.value("--report-interval").map { (text) throws(UsageError) in
            try parseValue(text, of: "--report-interval") { (text) throws(InvalidValueError) in try TraceSpan.parse(text) }
        }
        if let cap = try arguments.integer("--max-requests") {
            guard cap > 0 else { throw UsageError("--max-requests \(cap): must be greater than 0") }
            window.maxRequests = cap
        }
        window.sampleRatio = try arguments.value("--sample").map { (text) throws(UsageError) in
            try parseValue(text, of: "--sample") { (text) throws(InvalidValueError) in try RequestWindow.parseSampleRatio(text) }
        }
        if let seed = try arguments.integer("--sample-seed") {
            guard seed >= 0 else { throw UsageError("--sample-seed \(seed): must be 0 or more") }
            guard window.sampleRatio != nil else { throw UsageError("--sample-seed \(seed): needs --sample") }
            window.sampleSeed = UInt64(seed)
        }
        if case .requests(let warm)? = window.warmup, let cap = window.maxRequests, warm >= cap {
            throw UsageError("--warmup \(warm)req: as long as --max-requests \(cap) or longer, which leaves nothing to measure")
        }
        return window
    }
}
