import CacheBench
import CacheBenchCommandLine
import Testing

@Suite("libCacheSim algorithms that are not provided")
struct UnprovidedPolicyTests {
    @Test("GLCache, gl-cache, LRB and 3LCache name themselves as not provided, with why", arguments: ["GLCache", "gl-cache", "LRB", "3LCache"])
    func refusedWithReason(_ name: String) {
        #expect {
            _ = try PolicyRegistry.policy(named: name)
        } throws: { error in
            "\(error)".contains("is not provided") && ("\(error)".contains("LightGBM") || "\(error)".contains("XGBoost"))
        }
    }

    @Test("the policy list ends with them in the table and the Markdown, and never lists them as policies")
    func listed() {
        let table = PolicyCatalog.render(PolicyRegistry.descriptors, as: .table, notProvided: PolicyRegistry.notProvided)
        let markdown = PolicyCatalog.render(PolicyRegistry.descriptors, as: .markdown, notProvided: PolicyRegistry.notProvided)
        for missing in PolicyRegistry.notProvided {
            #expect(table.contains("\(missing.name)") && table.contains("NOT PROVIDED: \(missing.reason)"))
            #expect(markdown.contains("- `\(missing.name)`: \(missing.reason)."))
            #expect(!PolicyRegistry.descriptors.contains { $0.name == missing.name || $0.aliases.contains(missing.name) })
        }
    }
}
