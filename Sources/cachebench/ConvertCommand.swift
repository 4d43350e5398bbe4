import CacheBench

enum ConvertCommand {
    static let help = """
    USAGE: cachebench convert TRACE --output FILE [--to oracle-general] [trace options]

    Converts a trace to libCacheSim's oracleGeneral binary format (24-byte records with each
    request's next-access index), as libCacheSim's traceConv does, so that libCacheSim's cachesim
    can replay exactly the same requests. Only get rows are written; set, delete and event rows
    cannot be expressed and are counted on stderr.

    OPTIONS:
      --output FILE           The binary file to write (whole, or not at all). Required.
      --to FORMAT             oracle-general (the default and only target).
      --trace-format F        auto (default: by content), csv, oracle-general, lcs, vscsi, twr or twr-ns.
      --columns MAP           CSV column map, 1-based: time=1,key=2,size=3,op=4.
      --header MODE           CSV header row: auto (default), present or absent.
      -h, --help              Show this help.

    EXAMPLE:
      cachebench generate zipf --requests 1000000 --output zipf.csv
      cachebench convert zipf.csv --output zipf.oracleGeneral.bin
    """

    static let spec = CommandSpec(name: "convert", valueOptions: ["--output", "--to", "--trace-format", "--columns", "--header"],
                                  positionals: 1...1)

    static func run(_ words: [String]) throws(CacheBenchError) {
        let trace: TraceSpec
        let output: String
        do throws(UsageError) {
            let arguments = try Arguments(words, spec: spec)
            guard let path = arguments.value("--output"), path != "-" else {
                throw UsageError("convert: --output FILE is required (the format is binary)")
            }
            if let target = arguments.value("--to"), target != "oracle-general" {
                throw UsageError("--to \(target): expected oracle-general")
            }
            output = path
            trace = try TraceOptions.traceSpec(arguments, path: arguments.positionals[0])
        } catch { throw .usage(error) }
        let summary = try OracleGeneralWriter.convert(trace, to: output)
        Output.error("wrote \(summary.records) records to \(output)"
            + (summary.leftOut > 0 ? "; left out \(summary.leftOut) set, delete and event rows" : ""))
    }
}
