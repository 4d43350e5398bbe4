import CacheBench
@testable import CacheBenchCommandLine
import EvictionPolicies
import Testing

/// Named choices (`--trace-format`, `--format`, `--header`, …) read as libCacheSim's users
/// spell them too: case, `-` and `_` do not matter.
@Suite("Named choices")
struct ArgumentChoiceTests {
    static let spec = CommandSpec(name: "test", valueOptions: ["--trace-format", "--format", "--to"], positionals: 0...0)

    func choice<T: RawRepresentable & CaseIterable>(_ option: String, _ text: String, default value: T) throws(UsageError) -> T
    where T.RawValue == String {
        try Arguments([option, text], spec: Self.spec).choice(option, default: value)
    }

    @Test("libCacheSim's spellings and any case name the same choice", arguments: [
        ("oracle-general", TraceFormat.oracleGeneral), ("oracleGeneral", .oracleGeneral), ("OracleGeneral", .oracleGeneral),
        ("oracle_general", .oracleGeneral), ("ORACLE-GENERAL", .oracleGeneral), ("twrNS", .twrNS), ("twr_ns", .twrNS),
        ("twr", .twr), ("LCS", .lcs), ("vscsi", .vscsi), ("CSV", .csv), ("Auto", .auto),
    ])
    func traceFormatNames(text: String, expected: TraceFormat) throws {
        #expect(try choice("--trace-format", text, default: TraceFormat.auto) == expected)
    }

    @Test("--trace-format takes libCacheSim's -t names, oracleGeneralBin and txt among them", arguments: [
        ("oracleGeneralBin", TraceFormat.oracleGeneral), ("oraclegeneralbin", .oracleGeneral), ("txt", .csv), ("twrNS", .twrNS),
    ])
    func traceFormatsAsLibCacheSim(text: String, expected: TraceFormat) throws {
        let arguments = try Arguments(["--trace-format", text], spec: Self.spec)
        #expect(try TraceOptions.traceSpec(arguments, path: "t").format == expected)
    }

    @Test("--option reads libCacheSim's -e strings: pairs in one word, spaces after commas, a trailing comma")
    func optionStrings() throws {
        let expected = PolicyOptions(["fifo-size-ratio": "0.2", "move-to-main-threshold": "3"])
        for words in [["fifo-size-ratio=0.2, move-to-main-threshold=3"], ["fifo-size-ratio=0.2,move-to-main-threshold=3,"],
                      [" fifo-size-ratio = 0.2", "move-to-main-threshold=3"]] {
            #expect(try TraceOptions.policyOptions(words) == expected, "\(words)")
        }
        for (words, message) in [([","], "--option ,: expected KEY=VALUE"), (["a=1, b"], "--option b: expected KEY=VALUE"),
                                 (["a=1, a=2"], "--option a is given more than once")] {
            #expect { _ = try TraceOptions.policyOptions(words) } throws: { ($0 as? UsageError)?.message == message }
        }
        #expect { _ = try TraceOptions.policyOptions(["x"], option: "--disk-option") } throws: {
            ($0 as? UsageError)?.message == "--disk-option x: expected KEY=VALUE"
        }
    }

    @Test("report formats and convert's output format too")
    func otherChoices() throws {
        #expect(try choice("--format", "JSON", default: ReportFormat.table) == .json)
        #expect(try choice("--format", "Markdown", default: ReportFormat.table) == .markdown)
        #expect(try choice("--to", "oracleGeneral", default: TraceConverter.OutputFormat.lcs) == .oracleGeneral)
    }

    @Test("an unknown name is a usage error that lists the choices", arguments: ["oracle", "twr-n", "json2", "general-oracle"])
    func unknown(text: String) {
        #expect(throws: UsageError.self) { _ = try choice("--trace-format", text, default: TraceFormat.auto) }
        do {
            _ = try choice("--trace-format", text, default: TraceFormat.auto)
        } catch {
            #expect(error.description.contains("expected one of auto, csv, oracle-general"))
        }
    }

    @Test("no two choices of an option read the same once case and separators are ignored")
    func spellingsAreDistinct() {
        func distinct<T: RawRepresentable & CaseIterable>(_: T.Type) -> Bool where T.RawValue == String {
            let spellings = T.allCases.map { Arguments._choiceSpelling($0.rawValue) }
            return Set(spellings).count == spellings.count
        }
        #expect(distinct(TraceFormat.self))
        #expect(distinct(ReportFormat.self))
        #expect(distinct(HeaderMode.self))
        #expect(distinct(TierMemoryCost.self))
        #expect(distinct(TraceConverter.OutputFormat.self))
    }
}
