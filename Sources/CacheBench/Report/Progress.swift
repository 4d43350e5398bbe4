#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A one-line progress bar on standard error for long runs.
///
/// The command line creates one only when standard error is a terminal (``isTerminal``), so
/// pipes, CI logs and tests never see it. Redrawing is throttled to ten times a second and starts
/// only after half a second, so short runs print nothing; the line is erased when the work ends,
/// leaving the terminal as it was.
public final class ProgressReporter {
    /// What is being done, e.g. `compare Traces/x.csv`.
    private let label: String
    private let write: (String) -> Void
    private let started: UInt64
    private var lastDraw: UInt64 = 0
    private var drawn = false
    private var phase = ""

    /// Creates a reporter that writes to `write` (standard error by default).
    public init(label: String, write: @escaping (String) -> Void = ProgressReporter.writeToStandardError) {
        self.label = label
        self.write = write
        started = monotonicNanoseconds()
    }

    /// Whether standard error is a terminal, the only case where a progress bar helps.
    public static var isTerminal: Bool { isatty(2) != 0 }

    /// Writes `text` to standard error unbuffered.
    public static func writeToStandardError(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { buffer in
                _writeFileDescriptor(2, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            }
            if n <= 0 { return }
            offset += n
        }
        bytes.removeAll()
    }

    /// Names the current pass (`working set`, `replay`, …), shown before the bar.
    public func begin(phase: String) { self.phase = phase }

    /// Reports that `bytes` of `total` (when known) have been read and `items` rows or requests done.
    /// Cheap when called often: it reads the clock and returns unless a redraw is due.
    public func update(bytes: Int, total: Int?, items: Int) {
        guard due() else { return }
        let fraction = total.flatMap { $0 > 0 ? Double(bytes) / Double($0) : nil }
        var detail = Self.megabytes(bytes)
        if let total, total > 0 { detail += " / " + Self.megabytes(total) }
        draw(fraction: fraction, detail: detail + "  " + SizeFormat.grouped(items) + " rows")
    }

    /// Reports that `done` of `total` rows have been written (a generator).
    public func update(rows done: Int, of total: Int) {
        guard due() else { return }
        draw(fraction: total > 0 ? Double(done) / Double(total) : nil,
             detail: SizeFormat.grouped(done) + " / " + SizeFormat.grouped(total) + " rows")
    }

    private func due() -> Bool {
        let now = monotonicNanoseconds()
        guard now &- started >= 500_000_000, now &- lastDraw >= 100_000_000 else { return false }
        lastDraw = now
        return true
    }

    private func draw(fraction: Double?, detail: String) {
        var line = "\r" + label + (phase.isEmpty ? "" : " (\(phase))") + " "
        if let fraction {
            let clamped = min(1, max(0, fraction))
            let width = 30
            let filled = Int(clamped * Double(width))
            line += "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] "
            line += String(format2: clamped * 100) + " %  "
        }
        line += detail + "\u{1B}[K"
        drawn = true
        write(line)
    }

    /// Erases the bar, if one was drawn.
    public func finish() {
        if drawn { write("\r\u{1B}[K") }
        drawn = false
    }

    private static func megabytes(_ bytes: Int) -> String { String(format2: Double(bytes) / 1_000_000) + " MB" }
}

@inline(__always)
private func _writeFileDescriptor(_ fd: Int32, _ pointer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    return Glibc.write(fd, pointer, count)
    #else
    return Darwin.write(fd, pointer, count)
    #endif
}
