import Foundation

import EvictionPolicies

/// Renders the list of policies (`cachebench policies`).
public enum PolicyCatalog {
    /// The descriptors as a table, JSON array, CSV or Markdown.
    public static func render(_ descriptors: [PolicyDescriptor], as format: ReportFormat) -> String {
        switch format {
        case .json:
            return JSONValue.array(descriptors.map(json)).serialized(pretty: true) + "\n"
        case .csv:
            var out = "name,family,reproduces,rule,approximation,countLimit,defaultCapacity,parameters\n"
            for d in descriptors {
                out += [d.name, d.family.rawValue, d.reproduces, d.rule, String(d.isApproximation),
                        String(d.supportsCountLimit), defaultCapacity(d), parameters(d)]
                    .map(ReplayReport.csvField).joined(separator: ",") + "\n"
            }
            return out
        case .markdown:
            var out = "| name | family | reproduces | rule | parameters |\n|---|---|---|---|---|\n"
            for d in descriptors {
                out += "| `\(d.name)` | \(d.family.rawValue)\(d.isApproximation ? " (approximation)" : "") | \(d.reproduces) | \(d.rule) | \(parameters(d)) |\n"
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
                out += indent + "default capacity: \(defaultCapacity(d))"
                out += d.supportsCountLimit ? "; --count-limit supported\n" : "\n"
                if let slow = SlowByDesign.reason(d.name) { out += indent + "slow by design: \(slow)\n" }
                for p in d.parameters {
                    out += indent + "--option \(p.name)=\(p.defaultValue)  \(p.summary)\n"
                }
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
            ("slowByDesign", SlowByDesign.reason(d.name).map { .string($0) } ?? .null),
            ("parameters", .array(d.parameters.map {
                .object([("name", .string($0.name)), ("default", .string($0.defaultValue)), ("description", .string($0.summary))])
            })),
        ])
    }

    static func defaultCapacity(_ d: PolicyDescriptor) -> String {
        switch d.defaultCapacity {
        case .workingSetFraction: "working-set-10%"
        case .library(let bytes): "library-default \(bytes)"
        }
    }

    static func parameters(_ d: PolicyDescriptor) -> String {
        d.parameters.map { "\($0.name)=\($0.defaultValue)" }.joined(separator: "; ")
    }
}
