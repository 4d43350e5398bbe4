#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A synthetic workload: a deterministic stream of trace rows for a given seed.
///
/// Adding a kind means writing one type conforming to this protocol and adding it to
/// ``GeneratorRegistry/all``; `cachebench generate` reads the registry for its kinds, options
/// and help. Every kind takes `seed` and `requests` (the number of `get` rows); other
/// parameters are declared in ``parameters``.
public protocol TraceGenerator {
    /// The command-line name, e.g. `zipf`.
    static var kind: String { get }
    /// What the workload models, in one sentence.
    static var summary: String { get }
    /// The parameters beyond `seed` and `requests`, with defaults, as `--NAME VALUE` options.
    static var parameters: [GeneratorParameter] { get }
    /// The default number of requests.
    static var defaultRequests: Int { get }

    /// Creates a generator.
    ///
    /// - Throws: ``GeneratorError`` naming the parameter when one is malformed or out of range.
    init(seed: UInt64, requests: Int, options: GeneratorOptions) throws(GeneratorError)

    /// The next row, or `nil` at the end. Rows come in non-decreasing time order.
    mutating func next() -> Request?
}

/// One `--NAME VALUE` parameter of a generator.
public struct GeneratorParameter: Sendable, Equatable {
    /// The option's name without dashes, e.g. `alpha`.
    public var name: String
    /// The default, as typed.
    public var defaultValue: String
    /// What it does.
    public var summary: String

    /// Creates a parameter description.
    public init(_ name: String, default defaultValue: String, _ summary: String) {
        self.name = name
        self.defaultValue = defaultValue
        self.summary = summary
    }
}

/// Generator parameters by name (without dashes), with typed accessors whose errors name the option.
public struct GeneratorOptions: Sendable, Equatable {
    /// The raw values.
    public var values: [String: String]

    /// Creates options from raw values.
    public init(_ values: [String: String] = [:]) { self.values = values }

    /// A number in `range`, or `defaultValue` when absent.
    public func double(_ name: String, default defaultValue: Double, in range: ClosedRange<Double>) throws(GeneratorError) -> Double {
        guard let raw = values[name] else { return defaultValue }
        guard let value = Double(raw), value.isFinite, range.contains(value) else {
            throw .invalidValue(InvalidValueError(name, raw, expected: "expected a number from \(range.lowerBound) to \(range.upperBound)"))
        }
        return value
    }

    /// A whole number in `range`, or `defaultValue` when absent.
    public func integer(_ name: String, default defaultValue: Int, in range: ClosedRange<Int>) throws(GeneratorError) -> Int {
        guard let raw = values[name] else { return defaultValue }
        guard let value = Int(raw), range.contains(value) else {
            throw .invalidValue(InvalidValueError(name, raw, expected: "expected a whole number from \(range.lowerBound) to \(range.upperBound)"))
        }
        return value
    }

    /// A size (`4096`, `64KiB`, `1MB`) in `range`, or `defaultValue` when absent.
    public func size(_ name: String, default defaultValue: Int, in range: ClosedRange<Int>) throws(GeneratorError) -> Int {
        guard let raw = values[name] else { return defaultValue }
        let value: Int
        do { value = try SizeFormat.parse(raw, setting: name) } catch { throw .invalidValue(error) }
        guard range.contains(value) else {
            throw .invalidValue(InvalidValueError(name, raw, expected: "expected a size from \(range.lowerBound) to \(range.upperBound)"))
        }
        return value
    }
}

/// The one list of trace generators.
public enum GeneratorRegistry {
    /// Every generator, in the order help lists them.
    public static var all: [any TraceGenerator.Type] {
        [
            ZipfGenerator.self,
            ImageFeedGenerator.self,
            ScanGenerator.self,
            LoopGenerator.self,
            MixGenerator.self,
        ]
    }

    /// The generator named `kind`.
    ///
    /// - Throws: ``GeneratorError/unknownKind(_:known:)`` naming the known kinds.
    public static func generator(named kind: String) throws(GeneratorError) -> any TraceGenerator.Type {
        // Any case, as policy names: `ZIPF` is `zipf`.
        if let found = all.first(where: { $0.kind == kind || $0.kind.lowercased() == kind.lowercased() }) { return found }
        throw .unknownKind(kind, known: all.map { $0.kind })
    }
}

/// Writes generated traces as CSV: `timestamp,key,size,op`, events with empty key and size.
public enum TraceGeneration {
    /// The CSV header every generated trace starts with.
    public static let header = "timestamp,key,size,op"

    /// Generates `kind` and writes it to `output` (a file, replaced whole or not at all) or to
    /// standard output when `output` is `nil` or `-`.
    ///
    /// - Returns: the number of rows written, header excluded.
    /// - Throws: ``CacheBenchError/generator(_:)`` for a bad kind or parameter (exit 2),
    ///   ``CacheBenchError/output(_:)`` when the output cannot be written (exit 74).
    @discardableResult
    public static func run(kind: String, seed: UInt64, requests: Int?, options: GeneratorOptions,
                           output: String?, progress: ProgressReporter? = nil) throws(CacheBenchError) -> Int {
        let type: any TraceGenerator.Type
        do { type = try GeneratorRegistry.generator(named: kind) } catch { throw .generator(error) }
        return try run(type, seed: seed, requests: requests, options: options, output: output, progress: progress)
    }

    private static func run<G: TraceGenerator>(_ type: G.Type, seed: UInt64, requests: Int?, options: GeneratorOptions,
                                                output: String?, progress: ProgressReporter?) throws(CacheBenchError) -> Int {
        let known = Set(G.parameters.map(\.name))
        for name in options.values.keys.sorted() where !known.contains(name) {
            throw .generator(.parameterNotTaken(name, kind: G.kind, taken: known.sorted()))
        }
        let count = requests ?? G.defaultRequests
        // At least one: a trace of no rows is one that every other command refuses.
        guard count >= 1 else { throw .generator(.invalidValue(InvalidValueError("requests", String(count), expected: "must be at least 1"))) }
        var generator: G
        do { generator = try G(seed: seed, requests: count, options: options) } catch { throw .generator(error) }
        var sink = try _CSVSink(path: output)
        var rows = 0
        sink.append(header)
        sink.append("\n")
        var gets = 0
        // Every reader refuses a trace whose sizes add up past 2^63-1 bytes; none is written.
        var sizeTotal = 0
        while let row = generator.next() {
            let (total, overflow) = sizeTotal.addingReportingOverflow(max(row.size, 0))
            if overflow { throw .generator(.sizesPastLimit(row: rows + 1)) }
            sizeTotal = total
            sink.appendRow(row)
            rows += 1
            if row.operation == .get { gets += 1 }
            if sink.buffered >= 1 << 20 {
                try sink.flush()
                progress?.update(rows: gets, of: count)
            }
        }
        try sink.finish()
        progress?.finish()
        return rows
    }
}

/// Buffers CSV text into an ``AtomicFile``: a named file is replaced whole or not at all.
struct _CSVSink {
    private var buffer: [UInt8] = []
    private let file: AtomicFile

    init(path: String?) throws(CacheBenchError) {
        buffer.reserveCapacity(1 << 20 + 4096)
        do { file = try AtomicFile(path: path ?? "-") } catch { throw CacheBenchError(error) }
    }

    var buffered: Int { buffer.count }

    mutating func append(_ text: String) { buffer.append(contentsOf: text.utf8) }

    mutating func appendRow(_ row: Request) { Self.encode(row, into: &buffer) }

    /// `time,key,size,op`; the time in seconds with at most three decimals, trailing zeros dropped.
    static func encode(_ row: Request, into buffer: inout [UInt8]) {
        let milliseconds = Int64((row.time * 1000).rounded())
        buffer.append(contentsOf: String(milliseconds / 1000).utf8)
        var fraction = Int(milliseconds % 1000)
        if fraction != 0 {
            buffer.append(UInt8(ascii: "."))
            var digits = 3
            while fraction % 10 == 0 { fraction /= 10; digits -= 1 }
            let text = String(fraction)
            buffer.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: digits - text.utf8.count))
            buffer.append(contentsOf: text.utf8)
        }
        buffer.append(UInt8(ascii: ","))
        if row.operation.hasKey {
            buffer.append(contentsOf: String(row.key).utf8)
            buffer.append(UInt8(ascii: ","))
            if row.operation != .delete { buffer.append(contentsOf: String(row.size).utf8) }
        } else {
            buffer.append(UInt8(ascii: ","))
        }
        buffer.append(UInt8(ascii: ","))
        buffer.append(contentsOf: row.operation.name.utf8)
        buffer.append(UInt8(ascii: "\n"))
    }

    mutating func flush() throws(CacheBenchError) {
        do { try file.write(buffer) } catch { throw CacheBenchError(error) }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes what is left and puts the file in place.
    mutating func finish() throws(CacheBenchError) {
        try flush()
        do { try file.commit() } catch { throw CacheBenchError(error) }
    }
}
