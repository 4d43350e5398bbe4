import CacheBench

enum ConvertCommand {
    static let help = """
    USAGE: cachebench convert TRACE --output FILE [--to oracle-general] [--remove-size-change] [trace options]

    Converts a trace to libCacheSim's oracleGeneral binary format (24-byte records with each
    request's next-access index), as libCacheSim's traceConv does, so that libCacheSim's cachesim
    can replay exactly the same requests (byte-identical to traceConv's output). Only get rows of
    non-zero size are written, and only they count in the next-access chain; numeric keys (up to
    20 digits) are kept as numbers. Set, delete, event and zero-size rows are counted on stderr.
    Any input format cachebench reads works, compressed or not; TRACE may be '-' or a pipe (it is
    read once; the second pass reads a temporary copy). The output is opened before the first
    pass, and may not be the input.

    OPTIONS:
      --output FILE           The binary file to write (whole, or not at all). Required.
      --to FORMAT             oracle-general (the default and only target).
      --remove-size-change    Give every request of an object its first size (traceConv's option).
      --trace-format F        auto (default: by content), csv, oracle-general, lcs, vscsi, twr or twr-ns.
      --columns MAP           CSV column map, 1-based: time=1,key=2,size=3,op=4.
      --header MODE           CSV header row: auto (default), present or absent.
      -h, --help              Show this help.

    EXAMPLE:
      cachebench generate zipf --requests 1000000 --output zipf.csv
      cachebench convert zipf.csv --output zipf.oracleGeneral.bin
    """

    static let spec = CommandSpec(name: "convert", valueOptions: ["--output", "--to", "--trace-format", "--columns", "--header"],
                                  flags: ["--remove-size-change"], positionals: 1...1)

    static func run(_ words: [String]) throws(CacheBenchError) {
        let trace: TraceSpec
        let output: String
        let options: TraceConverter.Options
        do throws(UsageError) {
            let arguments = try Arguments(words, spec: spec)
            guard let path = arguments.value("--output"), path != "-" else {
                throw UsageError("convert: --output FILE is required (the format is binary)")
            }
            if let target = arguments.value("--to"), target != "oracle-general" {
                throw UsageError("--to \(target): expected oracle-general")
            }
            output = path
            try Output.requireDistinct(arguments, inputs: [arguments.positionals[0]], outputs: ["--output"])
            options = TraceConverter.Options(keepFirstSize: arguments.flags.contains("--remove-size-change"))
            trace = try TraceOptions.traceSpec(arguments, path: arguments.positionals[0])
        } catch { throw .usage(error) }
        let summary = try TraceConverter.convert(trace, to: output, options: options)
        Output.error("wrote \(summary.records) records to \(output)"
            + (summary.leftOut > 0 ? "; left out \(summary.leftOut) set, delete and event rows" : "")
            + (summary.zeroSize > 0 ? "; left out \(summary.zeroSize) zero-size rows" : "")
            + (summary.sizesChanged > 0 ? "; kept the first size in \(summary.sizesChanged) records" : ""))
    }
}
