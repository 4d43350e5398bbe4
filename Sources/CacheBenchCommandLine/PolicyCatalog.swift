import Foundation

import CacheBench
import EvictionPolicies

/// Renders the list of policies (`cachebench policies`), in the command line's words: a
/// parameter reads as the `--option` that sets it.
public enum PolicyCatalog {
    /// The descriptors as a table, JSON array, CSV or Markdown; the table and the Markdown end
    /// with the algorithms in `notProvided` and why (JSON and CSV keep one shape per row).
    public static func render(_ descriptors: [PolicyDescriptor], as format: ReportFormat,
                              notProvided: [UnprovidedPolicy] = []) -> String {
        switch format {
        case .json:
            return JSONValue.array(descriptors.map(json)).serialized(pretty: true) + "\n"
        case .csv:
            // JSON's fields, in its order after the first columns (kept where they were).
            var out = "name,family,reproduces,rule,approximation,countLimit,defaultCapacity,parameters,aliases,deterministic,"
                + "needsFuture,slowByDesign,parameterDescriptions\n"
            for d in descriptors {
                out += [d.name, d.family.rawValue, d.reproduces, d.rule, String(d.isApproximation),
                        String(d.supportsCountLimit), defaultCapacity(d), parameters(d),
                        d.aliases.joined(separator: " "), String(d.isDeterministic),
                        String(d.needsFuture), d.slowByDesign ?? "", parameterDescriptions(d)]
                    .map(ReplayReport.csvField).joined(separator: ",") + "\n"
            }
            return out
        case .markdown:
            var out = "| name | aliases | family | deterministic | reproduces | rule | parameters | default capacity | count limit | needs the future | slow by design |\n"
                + "|---|---|---|---|---|---|---|---|---|---|---|\n"
            for d in descriptors {
                let aliases = d.aliases.map(codeCell).joined(separator: ", ")
                let cells = [
                    codeCell(d.name), aliases, d.family.rawValue + (d.isApproximation ? " (approximation)" : ""),
                    d.isDeterministic ? "yes" : hasSeed(d) ? "no (seeded)" : "no", ReplayReport.markdownCell(d.reproduces), ReplayReport.markdownCell(d.rule),
                    ReplayReport.markdownCell(parameterDescriptions(d)), defaultCapacity(d), d.supportsCountLimit ? "yes" : "no",
                    d.needsFuture ? "yes" : "no", ReplayReport.markdownCell(d.slowByDesign ?? ""),
                ]
                out += "| " + cells.joined(separator: " | ") + " |\n"
            }
            if !notProvided.isEmpty {
                out += "\nNot provided:\n\n"
                for p in notProvided { out += "- `\(p.name)`: \(p.reason).\n" }
            }
            return out
        case .table:
            var out = ""
            // Wide enough for the longest name (foundation-nscache) plus two spaces.
            let width = max(14, (descriptors.map(\.name.count).max() ?? 0) + 2)
            let indent = String(repeating: " ", count: width)
            for d in descriptors {
                out += d.name.padding(toLength: width, withPad: " ", startingAt: 0)
                out += "\(d.reproduces)\(d.isApproximation ? " [APPROXIMATION]" : "")\n"
                out += indent + d.rule + "\n"
                if !d.aliases.isEmpty { out += indent + "also: " + d.aliases.joined(separator: ", ") + "\n" }
                if !d.isDeterministic {
                    out += indent + (hasSeed(d) ? "randomized: --option seed=N makes a run repeatable\n" : "randomized, with no seed option: runs may differ\n")
                }
                out += indent + "default capacity: \(defaultCapacity(d))"
                out += d.supportsCountLimit ? "; --count-limit supported\n" : "\n"
                if let slow = d.slowByDesign { out += indent + "slow by design: \(slow)\n" }
                for p in d.parameters {
                    let aka = p.aliases.isEmpty ? "" : " (also \(p.aliases.joined(separator: ", ")))"
                    out += indent + "--option \(p.name)=\(p.defaultValue)  \(p.summary)\(aka)\n"
                }
            }
            for p in notProvided {
                out += p.name.padding(toLength: width, withPad: " ", startingAt: 0) + "NOT PROVIDED: \(p.reason)\n"
            }
            return out
        }
    }

    static func json(_ d: PolicyDescriptor) -> JSONValue {
        .object([
            ("name", .string(d.name)), ("family", .string(d.family.rawValue)), ("reproduces", .string(d.reproduces)),
            ("rule", .string(d.rule)), ("approximation", .bool(d.isApproximation)),
            ("countLimit", .bool(d.supportsCountLimit)), ("defaultCapacity", .string(defaultCapacity(d))),
            ("needsFuture", .bool(d.needsFuture)),
            ("slowByDesign", d.slowByDesign.map { .string($0) } ?? .null),
            ("aliases", .array(d.aliases.map { .string($0) })), ("deterministic", .bool(d.isDeterministic)),
            ("parameters", .array(d.parameters.map {
                .object([("name", .string($0.name)), ("default", .string($0.defaultValue)), ("description", .string($0.summary)),
                         ("aliases", .array($0.aliases.map { .string($0) }))])
            })),
        ])
    }

    /// `name` as a code span in a Markdown table cell: a plug-in's name may hold a backtick, or a
    /// `|`, which ends a cell even inside a code span.
    static func codeCell(_ name: String) -> String {
        ReplayReport.markdownCode(name).replacingOccurrences(of: "|", with: "\\|")
    }

    /// Whether the policy takes a `seed` option (a plug-in that draws random numbers may not).
    static func hasSeed(_ d: PolicyDescriptor) -> Bool {
        d.parameters.contains { ([$0.name] + $0.aliases).contains { $0.lowercased() == "seed" } }
    }

    static func defaultCapacity(_ d: PolicyDescriptor) -> String {
        switch d.defaultCapacity {
        // A share of the device's memory is stood in for by the working set, as the label says.
        case .workingSetFraction, .deviceShare: "working-set-10%"
        case .library(let bytes): "library-default \(bytes)"
        }
    }

    static func parameters(_ d: PolicyDescriptor) -> String {
        d.parameters.map { p in
            "\(p.name)=\(p.defaultValue)" + (p.aliases.isEmpty ? "" : " (also \(p.aliases.joined(separator: ", ")))")
        }.joined(separator: "; ")
    }

    /// Each parameter with its default and what it sets: `seed=1: seed of the random generator; …`.
    static func parameterDescriptions(_ d: PolicyDescriptor) -> String {
        d.parameters.map { p in
            "\(p.name)=\(p.defaultValue): \(p.summary)" + (p.aliases.isEmpty ? "" : " (also \(p.aliases.joined(separator: ", ")))")
        }.joined(separator: "; ")
    }
}
