import CacheBench

enum ConvertCommand {
    static let help = """
    USAGE: cachebench convert TRACE --output FILE [--output-format oracle-general|lcs] [--sample RATIO]
                              [--remove-size-change] [trace options]

    Converts a trace to libCacheSim's oracleGeneral binary format (24-byte records with each
    request's next-access index) or to lcs v1 (traceConv's 8 KiB statistics header, then the
    same records), as libCacheSim's traceConv does, so that libCacheSim's cachesim can replay
    exactly the same requests (byte-identical to traceConv's output). Only get rows are
    written, and only they count in the next-access chain; from text traces only those of
    non-zero size (a binary input's zero-size rows are written, as traceConv writes them);
    numeric keys (up to 20 digits) are kept as numbers. Set, delete, event and left-out
    zero-size rows are counted on stderr.
    Any input format cachebench reads works, compressed or not; TRACE may be '-' or a pipe (it is
    read once; the second pass reads a temporary copy). The output is opened before the first
    pass, and may not be the input.

    OPTIONS:
      --output FILE           The binary file to write (whole, or not at all). Required.
      --output-format F       oracle-general (default) or lcs (lcs v1, traceConv's -f lcs). --to is
                              the same option.
      --sample RATIO          Keep only the objects libCacheSim's spatial sampler keeps (traceConv's
                              --sample-ratio): those whose XXH3 hash of the id is a multiple of
                              floor(1/RATIO). RATIO is 1 (everything) or in (0, 0.5], written
                              as replay's: 0.01 or 1%.
      --remove-size-change    Give every request of an object one size (traceConv's option): its
                              first size in oracle-general, its last in lcs, as traceConv does.
      --trace-format F        auto (default: by content), csv, oracle-general, lcs, vscsi, twr or twr-ns.
                              Any case; libCacheSim's names too (oracleGeneral, twrNS; txt is
                              csv, oracleGeneralBin oracle-general).
      --columns MAP           CSV column map, 1-based: time=1,key=2,size=3,op=4.
      --header MODE           CSV header row: auto (default), present or absent.
      -h, --help              Show this help.


    EXIT STATUS:
      0 ok, 2 usage, 65 bad trace, 66 cannot open, 74 cannot write.
    EXAMPLE:
      cachebench generate zipf --requests 1000000 --output zipf.csv
      cachebench convert zipf.csv --output zipf.oracleGeneral.bin
      cachebench convert zipf.csv --output zipf-1pc.lcs --output-format lcs --sample 0.01
    """

    static let spec = CommandSpec(name: "convert", valueOptions: ["--output", "--to", "--output-format", "--sample", "--trace-format", "--columns", "--header"],
                                  flags: ["--remove-size-change"], positionals: 1...1)

    static func run(_ words: [String]) throws(CommandLineError) {
        let trace: TraceSpec
        let output: String
        let options: TraceConverter.Options
        do throws(UsageError) {
            let arguments = try Arguments(words, spec: spec)
            guard let path = arguments.value("--output") else {
                throw UsageError("convert: --output FILE is required (the format is binary)")
            }
            // `-`, or a name of an open descriptor (`/dev/stdout`, `/dev/stderr`, `/dev/fd/3`): a stream.
            guard path != "-" && AtomicFile.openDescriptor(named: path) == nil else {
                throw UsageError("--output \(path): convert writes a file, not standard output or another open stream (the format is binary, and the file is written whole or not at all)")
            }
            if arguments.value("--to") != nil, arguments.value("--output-format") != nil {
                throw UsageError("--to and --output-format are the same option: give one")
            }
            let format: TraceConverter.OutputFormat = arguments.value("--to") != nil
                ? try arguments.choice("--to", default: .oracleGeneral)
                : try arguments.choice("--output-format", default: .oracleGeneral)
            var sampler: SpatialSampler?
            if let text = arguments.value("--sample") {
                // The spellings replay's --sample takes (0.01, 1%), then libCacheSim's sampler's range.
                let ratio = try parseValue(text, of: "--sample") { (text) throws(InvalidValueError) in try RequestWindow.parseSampleRatio(text) }
                // The parser has checked (0, 1]; what the sampler can still refuse is (0.5, 1).
                do throws(SpatialSampler.Problem) {
                    sampler = try SpatialSampler(ratio: ratio)
                } catch {
                    throw UsageError("--sample \(text): libCacheSim's sampler takes 1 or a ratio up to 0.5 (one object in floor(1/RATIO))")
                }
            }
            output = path
            try Output.requireDistinct(arguments, inputs: [arguments.positionals[0]], outputs: ["--output"])
            options = TraceConverter.Options(removeSizeChange: arguments.flags.contains("--remove-size-change"),
                                             format: format, sampler: sampler)
            trace = try TraceOptions.traceSpec(arguments, path: arguments.positionals[0])
        } catch { throw .usage(error) }
        do throws(CacheBenchError) {
            let summary = try TraceConverter.convert(trace, to: output, options: options)
            Output.error("wrote \(summary.records) record\(summary.records == 1 ? "" : "s") to \(output)"
                + (summary.leftOut > 0 ? "; left out \(summary.leftOut) set, delete and event rows" : "")
                + (summary.zeroSize > 0 ? "; left out \(summary.zeroSize) zero-size rows" : "")
                + (summary.sampledOut > 0 ? "; sampled out \(summary.sampledOut) requests" : "")
                + (summary.sizesChanged > 0 ? "; kept one size per object in \(summary.sizesChanged) records" : "")
                + (summary.timesWrapped > 0 ? "; \(summary.timesWrapped) records' times are 2^32 s or more and were written modulo 2^32 (0 from 2^63 on), as traceConv writes them (times in milliseconds?)" : ""))
        } catch { throw .run(error) }
    }
}
