import CacheBench
import CacheBenchCommandLine
import Foundation
import Testing

@Suite("policies in every format")
struct PolicyCatalogFormatsTests {
    @Test("policies lists in CSV and Markdown what its JSON lists: the future, slowness, default capacity and each parameter's meaning")
    func policiesInEveryFormat() throws {
        let json = try #require(try JSONSerialization.jsonObject(with: Data(PolicyCatalog.render(PolicyRegistry.descriptors, as: .json).utf8)) as? [[String: Any]])
        let csv = PolicyCatalog.render(PolicyRegistry.descriptors, as: .csv)
        let markdown = PolicyCatalog.render(PolicyRegistry.descriptors, as: .markdown)
        #expect(csv.hasPrefix("name,family,reproduces,rule,approximation,countLimit,defaultCapacity,parameters,aliases,deterministic,needsFuture,slowByDesign,parameterDescriptions\n"))
        #expect(markdown.contains("| default capacity | count limit | needs the future | slow by design |"))
        for policy in json {
            let name = try #require(policy["name"] as? String)
            let row = try #require(markdown.split(separator: "\n").first { $0.hasPrefix("| `\(name)` |") })
            if policy["needsFuture"] as? Bool == true { #expect(row.contains("| yes | ") && csv.contains(",true,"), "\(name)") }
            if let slow = policy["slowByDesign"] as? String { #expect(row.contains(slow) && csv.contains(slow), "\(name)") }
            #expect(row.contains("| \(policy["defaultCapacity"] as? String ?? "?") |"), "\(name): \(row)")
            for parameter in policy["parameters"] as? [[String: Any]] ?? [] {
                let description = try #require(parameter["description"] as? String)
                #expect(csv.contains(description) && row.contains(ReplayReport.markdownCell(description)), "\(name): \(description)")
            }
        }
    }

}
