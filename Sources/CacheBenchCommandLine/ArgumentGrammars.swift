import CacheBench
import Foundation

// The grammars of the command line's structured arguments. The engine takes the values they
// produce (a column map, a tier pair, a tolerance) and never sees the text or the flags.

extension CSVColumns {
    /// Parses `--columns time=1,key=2,size=3,op=4` (1-based, any order, `key` required).
    ///
    /// - Throws: a message naming the bad part.
    static func parse(_ text: String) throws(UsageError) -> CSVColumns {
        var map: [String: Int] = [:]
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pieces.count == 2 else {
                throw UsageError("--columns \(text): expected NAME=COLUMN pairs such as time=1,key=2,size=3,op=4")
            }
            let name = _trimmingSpaces(pieces[0]).lowercased()
            guard let field = Self.fieldNames[name] else {
                throw UsageError("--columns \(text): unknown field '\(name)' (known: time, key, size, op)")
            }
            guard let column = Int(_trimmingSpaces(pieces[1])), column >= 1, column <= 4096 else {
                throw UsageError("--columns \(text): column for \(name) must be a whole number from 1 to 4096")
            }
            guard map[field] == nil else { throw UsageError("--columns \(text): \(field) is given twice") }
            map[field] = column - 1
        }
        guard let key = map["key"] else { throw UsageError("--columns \(text): the key column is required") }
        let columns = CSVColumns(time: map["time"], key: key, size: map["size"], operation: map["op"])
        let used = [columns.time, columns.key, columns.size, columns.operation].compactMap { $0 }
        guard Set(used).count == used.count else {
            throw UsageError("--columns \(text): two fields share one column")
        }
        return columns
    }
}

extension TierJob {
    /// Parses `--tier memory=NAME,disk=NAME` (in either order).
    ///
    /// - Returns: the memory policy's name and the disk policy's name.
    static func parseTiers(_ text: String) throws(UsageError) -> (memory: String, disk: String) {
        var memory: String?, disk: String?
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pieces.count == 2, !pieces[1].isEmpty else {
                throw UsageError("--tier \(text): expected memory=POLICY,disk=POLICY")
            }
            switch pieces[0].lowercased() {
            case "memory" where memory == nil: memory = String(pieces[1])
            case "disk" where disk == nil: disk = String(pieces[1])
            default: throw UsageError("--tier \(text): expected memory=POLICY,disk=POLICY, each once")
            }
        }
        guard let memory, let disk else { throw UsageError("--tier \(text): expected memory=POLICY,disk=POLICY") }
        return (memory, disk)
    }
}

extension RegressionGate {
    /// Parses `--tolerance`: a hit-ratio difference (`0.01`) or percentage points (`1%`).
    static func parseTolerance(_ text: String) throws(UsageError) -> Double {
        let trimmed = _trimmingSpaces(Substring(text))
        let isPercent = trimmed.hasSuffix("%")
        let number = isPercent ? _trimmingSpaces(trimmed.dropLast()) : trimmed
        guard let value = Double(number), value.isFinite, value >= 0 else {
            throw UsageError("--tolerance \(text): expected a non-negative number, e.g. 0.01 (hit-ratio units) or 1% (percentage points)")
        }
        let tolerance = isPercent ? value / 100 : value
        guard tolerance <= 1 else { throw UsageError("--tolerance \(text): a hit ratio cannot drop by more than 1 (100%)") }
        return tolerance
    }
}

extension MemoryWarningOverride {
    /// Parses `--memory-warning`: `policy` (the policy's own reaction alone: `nil`), `remove-all`,
    /// `ignore`, or `trim:F` with F a fraction from 0 to 1 or a percentage (`trim:0.5`, `trim:50%`).
    static func parse(_ text: String) throws(UsageError) -> MemoryWarningOverride? {
        let expected = "expected policy, remove-all, ignore or trim:F (F from 0 to 1, or a percentage)"
        let trimmed = _trimmingSpaces(Substring(text)).lowercased()
        switch Arguments._choiceSpelling(trimmed) {
        case "policy": return nil
        case "removeall": return MemoryWarningOverride(.removeAll)
        case "ignore": return MemoryWarningOverride(.ignore)
        default:
            guard trimmed.hasPrefix("trim:") else { throw UsageError("--memory-warning \(text): \(expected)") }
            let number = _trimmingSpaces(Substring(trimmed.dropFirst(5)))
            let isPercent = number.hasSuffix("%")
            guard let value = Double(isPercent ? _trimmingSpaces(number.dropLast()) : number), value.isFinite else {
                throw UsageError("--memory-warning \(text): \(expected)")
            }
            let fraction = isPercent ? value / 100 : value
            guard fraction >= 0 && fraction <= 1 else { throw UsageError("--memory-warning \(text): \(expected)") }
            return MemoryWarningOverride(.trim(toFraction: fraction))
        }
    }
}

/// `text` without leading and trailing spaces and tabs.
private func _trimmingSpaces(_ text: Substring) -> Substring {
    var text = text
    while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
    while let last = text.last, last == " " || last == "\t" { text.removeLast() }
    return text
}
