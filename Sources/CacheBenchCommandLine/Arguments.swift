import CacheBench

/// What a command accepts: options that take a value, flags, and how many positionals.
struct CommandSpec {
    var name: String
    var valueOptions: Set<String>
    var repeatableOptions: Set<String> = []
    var flags: Set<String> = []
    var positionals: ClosedRange<Int>
    var positionalName: String = "TRACE"
}

/// Parsed command-line words.
struct Arguments {
    var positionals: [String] = []
    var values: [String: [String]] = [:]
    var flags: Set<String> = []

    /// Parses `words` against `spec`: `--name value`, `--name=value`, flags, `-` as a positional,
    /// `--` ending options.
    init(_ words: [String], spec: CommandSpec) throws(UsageError) {
        var i = 0
        var onlyPositionals = false
        while i < words.count {
            let word = words[i]
            i += 1
            if onlyPositionals || !word.hasPrefix("--") || word == "-" {
                if word.hasPrefix("-") && word != "-" && !onlyPositionals {
                    throw UsageError("\(spec.name): unknown option \(word) (see 'cachebench \(spec.name) --help')")
                }
                positionals.append(word)
                continue
            }
            if word == "--" { onlyPositionals = true; continue }
            var name = word
            var inlineValue: String?
            if let equals = word.firstIndex(of: "=") {
                name = String(word[..<equals])
                inlineValue = String(word[word.index(after: equals)...])
            }
            if spec.flags.contains(name) {
                guard inlineValue == nil else { throw UsageError("\(name) takes no value") }
                flags.insert(name)
            } else if spec.valueOptions.contains(name) || spec.repeatableOptions.contains(name) {
                let value: String
                if let inlineValue { value = inlineValue } else {
                    guard i < words.count else { throw UsageError("\(name) needs a value") }
                    // `--policy --capacity 10`: the value was left out, and the next option is not it.
                    let next = words[i].split(separator: "=", maxSplits: 1).first.map(String.init) ?? words[i]
                    if next.hasPrefix("--") && (spec.flags.contains(next) || spec.valueOptions.contains(next) || spec.repeatableOptions.contains(next)) {
                        throw UsageError("\(name) needs a value (\(next) is an option)")
                    }
                    value = words[i]
                    i += 1
                }
                // No option takes an empty value: '' is a script's unset variable, and as a path it
                // would fail only when written, after the whole run.
                guard !value.isEmpty else { throw UsageError("\(name) needs a value, not an empty one") }
                if !spec.repeatableOptions.contains(name), values[name] != nil {
                    throw UsageError("\(name) is given more than once")
                }
                values[name, default: []].append(value)
            } else {
                throw UsageError("\(spec.name): unknown option \(name) (see 'cachebench \(spec.name) --help')")
            }
        }
        guard spec.positionals.contains(positionals.count) else {
            if positionals.count < spec.positionals.lowerBound {
                throw UsageError("\(spec.name): missing \(spec.positionalName) (see 'cachebench \(spec.name) --help')")
            }
            throw UsageError("\(spec.name): unexpected argument '\(positionals[spec.positionals.upperBound])'")
        }
    }

    func value(_ name: String) -> String? { values[name]?.last }

    func all(_ name: String) -> [String] { values[name] ?? [] }

    /// The value of `name` as one of an enumeration's raw values, or one of `aliases` (other
    /// names users know a choice by, spelled as the raw values are matched).
    func choice<T: RawRepresentable & CaseIterable>(_ name: String, default defaultValue: T,
                                                    aliases: KeyValuePairs<String, T> = [:]) throws(UsageError) -> T
    where T.RawValue == String {
        guard let raw = value(name) else { return defaultValue }
        // Spelled as libCacheSim's users write them too: `oracleGeneral`, `twrNS`, `JSON` name
        // the same choices as `oracle-general`, `twr-ns` and `json` (case, `-` and `_` ignored).
        let spelled = Self._choiceSpelling(raw)
        guard let choice = T(rawValue: raw) ?? T.allCases.first(where: { Self._choiceSpelling($0.rawValue) == spelled })
                ?? aliases.first(where: { Self._choiceSpelling($0.key) == spelled })?.value else {
            let names = T.allCases.map(\.rawValue) + aliases.map { "\($0.key) (\($0.value.rawValue))" }
            throw UsageError("\(name) \(raw): expected one of \(names.joined(separator: ", "))")
        }
        return choice
    }

    /// A choice's name with case, `-` and `_` ignored.
    static func _choiceSpelling(_ name: String) -> String {
        String(name.lowercased().unicodeScalars.filter { $0 != "-" && $0 != "_" })
    }

    /// A whole number option.
    func integer(_ name: String) throws(UsageError) -> Int? {
        guard let raw = value(name) else { return nil }
        guard let value = Int(raw) else {
            // A whole number too large for the platform's integers says so.
            let digits = raw.hasPrefix("-") || raw.hasPrefix("+") ? raw.dropFirst() : Substring(raw)
            if !digits.isEmpty && digits.allSatisfy({ $0.isASCII && $0.isNumber }) {
                throw UsageError("\(name) \(raw): out of range (at most \(Int.max))")
            }
            throw UsageError("\(name) \(raw): not a whole number")
        }
        return value
    }
}
