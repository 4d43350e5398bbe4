import CacheBench
import Foundation
import EvictionPolicies

/// Writes command output through ``AtomicFile``: every report and chart is rendered first, then
/// all of a command's files are committed together, so a failure leaves every target as it was.
enum Output {
    /// Writes each `(text, path)` (`nil` or `-` is standard output), all or nothing.
    static func emit(_ outputs: [(text: String, path: String?)]) throws(CacheBenchError) {
        var files: [AtomicFile] = []
        do throws(OutputError) {
            for output in outputs {
                let file = try AtomicFile(path: output.path ?? "-")
                files.append(file)
                try file.write(output.text)
            }
            try AtomicFile.commitAll(files)
        } catch {
            for file in files { file.discard() }
            throw CacheBenchError(error)
        }
    }

    /// Fails at once (exit 74) when a file `options` name could not be written (a missing or
    /// unwritable folder, a folder as the target, a loop of links), before a run that may take
    /// hours ends in the same failure. Nothing is written; ``emit(_:)`` still writes atomically.
    /// An input that cannot be read (`inputs`, `-` aside) is reported first, by the run (exit 66),
    /// as before this check: then it checks nothing.
    static func requireWritable(_ arguments: Arguments, _ options: [String], inputs: [String]) throws(CacheBenchError) {
        for input in inputs where input != "-" && faccessat(AT_FDCWD, input, R_OK, AT_EACCESS) != 0 { return }
        for option in options {
            guard let path = arguments.value(option) else { continue }
            do throws(OutputError) { try AtomicFile.checkWritable(path) } catch { throw CacheBenchError(error) }
        }
    }

    /// Writes `text` to `path` (`nil` or `-` is standard output), whole or not at all.
    static func emit(_ text: String, to path: String?) throws(CacheBenchError) {
        try emit([(text, path)])
    }

    /// Charts go to files: `-` (standard output, where the report goes) is refused for `options`,
    /// and so is any other name for standard output while the report goes there (`/dev/stdout`,
    /// or the file it is redirected to), which would mix the chart into the report.
    static func requireFiles(_ arguments: Arguments, _ options: [String]) throws(UsageError) {
        let reportToStandardOutput = (arguments.value("--output") ?? "-") == "-"
        for option in options {
            guard let path = arguments.value(option) else { continue }
            if path == "-" || reportToStandardOutput && isStandardOutput(path) {
                throw UsageError("\(option) needs a file name (the report itself goes to standard output)")
            }
        }
    }

    /// ``requireFiles(_:_:)`` for chart options, whose files are SVG: a name that asks for
    /// another image format (`chart.png`) is refused rather than given SVG under that name.
    static func requireCharts(_ arguments: Arguments, _ options: [String]) throws(UsageError) {
        try requireFiles(arguments, options)
        for option in options {
            guard let path = arguments.value(option) else { continue }
            let suffix = (path as NSString).pathExtension.lowercased()
            if Self.otherImageFormats.contains(suffix) {
                let after = Self.compressedSuffixes.contains(suffix) ? "compress it" : "convert it to .\(suffix)"
                throw UsageError("\(option) \(path): charts are SVG; name the file .svg (and \(after) afterwards)")
            }
        }
    }

    /// File name extensions of image formats other than SVG, and of compressed files (`.svgz`).
    static let otherImageFormats = Set(["png", "jpg", "jpeg", "gif", "pdf", "webp", "bmp", "tif", "tiff", "eps", "heic"])
        .union(compressedSuffixes)
    /// File name extensions of compressed files, SVG's own `.svgz` among them.
    static let compressedSuffixes: Set<String> = ["svgz", "gz", "zst", "xz", "bz2"]

    /// Whether `path` names standard output: a name for its descriptor, or the file it is
    /// redirected to.
    static func isStandardOutput(_ path: String) -> Bool {
        path == "-" || AtomicFile.openDescriptor(named: path) == STDOUT_FILENO || AtomicFile.isFile(path, openAs: STDOUT_FILENO)
    }

    /// Refuses outputs that would overwrite a sweep's own files in `directory`: its manifest
    /// (`sweep.json`), its records (`cells/`), which `merge` and `sweep-report` read, and the
    /// traces behind them. `--output` absent is standard output, which is refused when it is
    /// redirected to one of those files (`merge DIR >> DIR/sweep.json`).
    static func requireOutsideSweep(_ arguments: Arguments, directory: String, outputs: [String]) throws(UsageError) {
        let root = sweepRoot(directory)
        for option in outputs {
            guard let path = arguments.value(option) ?? (option == "--output" ? "-" : nil) else { continue }
            guard path != "-" else {
                try requireStandardOutputOutsideSweep(directory)
                continue
            }
            let url = URL(fileURLWithPath: path).standardizedFileURL
            let resolved = url.deletingLastPathComponent().resolvingSymlinksInPath().appendingPathComponent(url.lastPathComponent).path
            let manifest = root + "/sweep.json", records = root + "/cells"
            if resolved == manifest || resolved == records || resolved.hasPrefix(records + "/")
                || AtomicFile.sameFile(path, manifest) {
                throw UsageError("\(option) \(path) is one of the sweep's own files in \(directory): writing it would destroy its records")
            }
            // The traces the manifest names are the data behind the records. (A folder without a
            // readable manifest is refused later, when it is loaded.)
            for trace in (try? SweepRecordStore(directory: directory).manifest())?.traces ?? []
            where sweepTracePaths(trace, of: directory).contains(where: { AtomicFile.sameFile($0, path) }) && !isDevice(path) {
                throw UsageError("\(option) \(path) is \(trace), a trace of the sweep in \(directory): writing it would destroy the data behind its records")
            }
        }
    }

    /// Refuses a standard output redirected to a sweep's manifest, one of its record files or
    /// one of its traces.
    static func requireStandardOutputOutsideSweep(_ directory: String) throws(UsageError) {
        guard standardOutputIsAFile else { return }
        let root = sweepRoot(directory)
        let records = ((try? FileManager.default.contentsOfDirectory(atPath: root + "/cells")) ?? []).sorted().map { root + "/cells/" + $0 }
        if let file = ([root + "/sweep.json"] + records).first(where: { AtomicFile.isFile($0, openAs: STDOUT_FILENO) }) {
            throw UsageError("standard output is \(file), one of the sweep's own files in \(directory): writing the report there would destroy its records")
        }
        try requireStandardOutputOutside(traces: (try? SweepRecordStore(directory: directory).manifest())?.traces ?? [],
                                         of: directory)
    }

    /// A sweep folder's path, standardized and with its links resolved, to compare files' paths with.
    private static func sweepRoot(_ directory: String) -> String {
        URL(fileURLWithPath: directory).standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// Where a sweep's `trace` may be. A relative trace path is the one the sweep was given,
    /// relative to where it ran, which the manifest does not record: it is looked for from here
    /// and from the folder that holds the sweep's output (where a sweep usually runs), so
    /// `cd / && merge /data/sw --output /data/t.csv` is refused too.
    private static func sweepTracePaths(_ trace: String, of directory: String?) -> [String] {
        guard !trace.hasPrefix("/"), let directory else { return [trace] }
        return [trace, (_parentPath(sweepRoot(directory)) as NSString).appendingPathComponent(trace)]
    }

    /// Refuses a standard output redirected to one of a sweep's `traces` (looked for as
    /// ``sweepTracePaths(_:of:)`` says).
    static func requireStandardOutputOutside(traces: [String], of directory: String?) throws(UsageError) {
        guard standardOutputIsAFile else { return }
        for trace in traces where sweepTracePaths(trace, of: directory).contains(where: { AtomicFile.isFile($0, openAs: STDOUT_FILENO) }) {
            let sweep = directory.map { " of the sweep in \($0)" } ?? " of the sweep"
            throw UsageError("standard output is \(trace), a trace\(sweep): writing there would destroy the data behind its records")
        }
    }

    /// Whether reading `path` reads standard input: `-`, or another name of what standard input
    /// is (`/dev/stdin`, `/dev/fd/0`, the pipe or file it comes from), which two inputs cannot
    /// both read.
    static func readsStandardInput(_ path: String) -> Bool {
        path == "-" || AtomicFile.names(path, openAs: STDIN_FILENO)
    }

    /// Whether standard output is redirected to a regular file (not a terminal, pipe or device).
    static var standardOutputIsAFile: Bool {
        var info = stat()
        return fstat(STDOUT_FILENO, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// Refuses outputs that would overwrite an input or each other: `inputs` are the files the
    /// command reads, `outputs` the options naming files it writes (`--output` absent is standard output).
    static func requireDistinct(_ arguments: Arguments, inputs: [String], outputs: [String],
                                inputName: String = "the input trace") throws(UsageError) {
        try requireDistinct(inputs: inputs, written: outputs.compactMap { option in
            arguments.value(option).map { (option, $0) } ?? (option == "--output" ? (option, "-") : nil)
        }, inputName: inputName)
    }

    /// ``requireDistinct(_:inputs:outputs:)`` for outputs named by (how the user named it, path):
    /// an option, or an option and the file it makes in a folder.
    static func requireDistinct(inputs: [String], written: [(String, String)],
                                inputName: String = "the input trace") throws(UsageError) {
        // Standard output redirected to an input (`>> trace.csv`, `1<> trace.csv`) would destroy it as surely.
        if written.contains(where: { $0.1 == "-" }) {
            for input in inputs where AtomicFile.isFile(input == "-" ? "/dev/stdin" : input, openAs: STDOUT_FILENO) {
                let named = input == "-" ? "(standard input reads it)" : input
                throw UsageError("standard output is \(inputName) \(named): writing the report there would destroy what is being read")
            }
        }
        let toStandardOutput = written.first { $0.1 == "-" }
        let written = written.filter { $0.1 != "-" }
        // A file written beside a report on standard output must not be the file standard output
        // is redirected to (`analyze t.csv --plot plots > plots/sizes.svg`): renamed into place,
        // it would replace the report.
        if let (reportOption, _) = toStandardOutput {
            for (option, path) in written where !isDevice(path) && isStandardOutput(path) {
                throw UsageError("\(option) \(path) is standard output, where the report goes (\(reportOption) absent): name another file")
            }
        }
        for (option, path) in written {
            for input in inputs where input != "-" && AtomicFile.sameFile(input, path) && !isDevice(path) {
                throw UsageError("\(option) \(path) is \(inputName): writing it would destroy what is being read")
            }
            // `-` reads standard input: the file redirected to it is the input just the same.
            if inputs.contains("-") && AtomicFile.isFile(path, openAs: STDIN_FILENO) {
                throw UsageError("\(option) \(path) is \(inputName) (standard input reads it): writing it would destroy what is being read")
            }
        }
        for (i, first) in written.enumerated() {
            for second in written[(i + 1)...] where AtomicFile.sameFile(first.1, second.1) && !isDevice(first.1) {
                throw UsageError("\(first.0) and \(second.0) name the same file (\(first.1))")
            }
        }
    }

    /// A device or FIFO (`/dev/null`) may receive several outputs; only files are replaced.
    private static func isDevice(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) != S_IFREG
    }

    /// One line on standard error, with control bytes from the input made visible. A failing
    /// standard error is ignored: it never changes the exit code.
    static func error(_ message: String) {
        // A message that points at a command ('cachebench policies') names the running executable.
        let named = program == "cachebench" ? message : message.replacingOccurrences(of: "'cachebench ", with: "'\(program) ")
        writeStandardError(program + ": " + escapingControls(named) + "\n")
    }

    /// The executable's name in messages: `cachebench`, or a researcher's own executable's. Set
    /// once by ``CacheBenchCommandLine/main(registry:arguments:)`` before any command runs, and
    /// only read after.
    nonisolated(unsafe) static var program = "cachebench"

    /// Writes `text` as it is to standard error, ignoring failures (see ``error(_:)``).
    static func writeStandardError(_ text: String) {
        Array(text.utf8).withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let n = write(STDERR_FILENO, base + offset, raw.count - offset)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }
                offset += n
            }
        }
    }

    /// Text for a terminal: control characters (ESC, CR, BEL, …) become `\u{1B}`-style escapes.
    static func escapingControls(_ text: String) -> String { ReplayReport.displayText(text) }
}
