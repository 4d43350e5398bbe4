import EvictionPolicies

/// A study: every trace × every policy × every capacity, under one configuration
/// (`cachebench sweep`).
///
/// Each (trace, policy, capacity) is a ``SweepCell``; the configuration (sizes ignored or not,
/// the count limit, policy options, the admission rule and how traces are read) is part of every cell's identity, so
/// results made under another configuration are never taken for these.
public struct SweepSpec: Sendable, Equatable {
    /// The trace files, in report order. Standard input is not a trace here: a sweep reads each
    /// file at least twice (identity and replay) and on several machines.
    public var traces: [String]
    /// Policy names, in report order.
    public var policies: [String]
    /// The capacities, in the order given (duplicates removed).
    public var capacities: [CapacityList.Item]
    /// A count limit, applied to the policies that have one.
    public var countLimit: Int?
    /// Every object has size 1; capacities count objects.
    public var ignoreSize: Bool
    /// Policy parameters; each policy receives those it declares.
    public var options: PolicyOptions
    /// How every trace is read (format, CSV columns and header); the path is each trace's own.
    public var reading: TraceSpec
    /// Compute `lru` from one stack-distance pass where exact (identical counts, as `compare`).
    public var lruStackDistance: Bool
    /// Threads per trace, as `compare`'s.
    public var threads: Int
    /// An admission rule in front of every policy (`--admission`), or `nil` to admit every miss.
    public var admission: AdmissionChoice?

    /// libCacheSim's default grid of cache sizes, as fractions of the working set.
    public static let defaultCapacities: [CapacityList.Item] = [
        .fraction(numerator: 1, denominator: 1000), .fraction(numerator: 3, denominator: 1000),
        .fraction(numerator: 1, denominator: 100), .fraction(numerator: 3, denominator: 100),
        .fraction(numerator: 1, denominator: 10), .fraction(numerator: 2, denominator: 10),
        .fraction(numerator: 4, denominator: 10), .fraction(numerator: 8, denominator: 10),
    ]

    /// Creates a sweep; `capacities` defaults to libCacheSim's grid.
    public init(traces: [String], policies: [String], capacities: [CapacityList.Item] = SweepSpec.defaultCapacities,
                countLimit: Int? = nil, ignoreSize: Bool = false, options: PolicyOptions = PolicyOptions(),
                reading: TraceSpec = TraceSpec(path: ""), lruStackDistance: Bool = true, threads: Int = 2,
                admission: AdmissionChoice? = nil) {
        self.traces = traces
        self.policies = policies
        var seen = Set<String>()
        self.capacities = capacities.filter { seen.insert(SweepCapacity($0).key).inserted }
        self.countLimit = countLimit
        self.ignoreSize = ignoreSize
        self.options = options
        self.reading = reading
        self.lruStackDistance = lruStackDistance
        self.threads = threads
        self.admission = admission
    }

    /// The configuration every cell shares, as canonical text: part of each cell's identity.
    public var configurationKey: String {
        let options = self.options.values.keys.sorted().map { "\($0)=\(self.options.values[$0] ?? "")" }.joined(separator: ",")
        let columns = reading.columns.map { c in
            [("time", c.time), ("key", c.key), ("size", c.size), ("op", c.operation)]
                .compactMap { name, index in index.map { "\(name)=\($0 + 1)" } }.joined(separator: ",")
        } ?? "auto"
        return "ignore-size=\(ignoreSize);count-limit=\(countLimit.map(String.init) ?? "none");options=\(options)"
            + ";format=\(reading.format.rawValue);columns=\(columns);header=\(reading.header.rawValue)"
            // Only when set, so the cells of sweeps without a rule keep the identities they had.
            + (admission.map { ";admission=\($0.canonicalText)" } ?? "")
    }
}

/// One capacity of a sweep with its stable key and a label for people.
public struct SweepCapacity: Sendable, Hashable {
    /// The capacity as given.
    public var item: CapacityList.Item

    /// Wraps an item.
    public init(_ item: CapacityList.Item) { self.item = item }

    /// Equal when the keys are (`0.01` is `0.010`).
    public static func == (lhs: SweepCapacity, rhs: SweepCapacity) -> Bool { lhs.key == rhs.key }

    /// Hashes the key.
    public func hash(into hasher: inout Hasher) { hasher.combine(key) }

    /// Canonical text: `size:BYTES`, or `fraction:N/D` in lowest terms (0.010 and 0.01 are one key).
    public var key: String {
        switch item {
        case .size(let size): return "size:\(size)"
        case .fraction(let numerator, let denominator):
            let divisor = Self.gcd(numerator, denominator)
            return "fraction:\(numerator / divisor)/\(denominator / divisor)"
        }
    }

    /// `0.01` for a fraction, the byte or object count for a size.
    public var label: String {
        switch item {
        case .size(let size): return String(size)
        case .fraction(let numerator, let denominator):
            // As a decimal when the denominator divides a power of ten (every fraction typed as one).
            var digits = 0, power = 1
            while power % denominator != 0 {
                guard digits < 18 else { return "\(numerator)/\(denominator)" }
                power *= 10
                digits += 1
            }
            let text = String(numerator * (power / denominator))
            guard digits > 0 else { return text }
            let padded = String(repeating: "0", count: max(0, digits - text.count + 1)) + text
            var decimal = String(padded.dropLast(digits)) + "." + String(padded.suffix(digits))
            while decimal.hasSuffix("0") { decimal.removeLast() }
            if decimal.hasSuffix(".") { decimal.removeLast() }  // 100/100 is "1", not "1."
            return decimal
        }
    }

    /// The item back from its ``key``, or `nil` when `key` is not one.
    public init?(key: String) {
        if key.hasPrefix("size:"), let size = Int(key.dropFirst(5)), size > 0 {
            item = .size(size)
        } else if key.hasPrefix("fraction:") {
            let parts = key.dropFirst(9).split(separator: "/")
            // Up to the whole working set: `--capacities 100%` is a fraction of 1.
            guard parts.count == 2, let n = Int(parts[0]), let d = Int(parts[1]), n > 0, d >= n else { return nil }
            item = .fraction(numerator: n, denominator: d)
        } else {
            return nil
        }
    }

    /// The capacity in bytes (objects with sizes ignored) on a trace whose working set is `workingSet`.
    public func resolve(workingSet: Int?) -> Int {
        CapacityList([item]).resolve(workingSet: workingSet).first ?? 1
    }

    static func gcd(_ a: Int, _ b: Int) -> Int {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return max(1, a)
    }
}

/// One (trace, policy, capacity) of a sweep.
public struct SweepCell: Sendable, Hashable {
    /// The trace's path as given.
    public var trace: String
    /// The policy's name.
    public var policy: String
    /// The capacity.
    public var capacity: SweepCapacity

    /// Creates a cell.
    public init(trace: String, policy: String, capacity: SweepCapacity) {
        self.trace = trace
        self.policy = policy
        self.capacity = capacity
    }

    /// The stable identity: a hash of the trace's content identity, the policy, the capacity's key
    /// and the configuration, 16 hexadecimal digits. The same cell has the same identity on every
    /// machine, under any path and in any shard layout.
    public func identity(trace traceIdentity: TraceIdentity, configurationKey: String) -> String {
        _FNV1a64.hex(of: "cell|\(traceIdentity)|\(policy)|\(capacity.key)|\(configurationKey)")
    }

    /// `TRACE policy CAPACITY`, for messages.
    public var description: String { "\(trace) \(policy) \(capacity.label)" }
}
