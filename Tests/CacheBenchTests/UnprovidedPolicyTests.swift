import CacheBench
@testable import CacheBenchCommandLine
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

    @Test("nop and pluginCache, libCacheSim's overhead probe and C plug-in host, name themselves as not provided, with why", arguments: ["nop", "NOP", "pluginCache", "plugincache"])
    func libCacheSimInfrastructure(_ name: String) {
        #expect {
            _ = try PolicyRegistry.policy(named: name)
        } throws: { error in
            "\(error)".contains("is not provided") && ("\(error)".contains("nothing") || "\(error)".contains("register it"))
        }
    }

    @Test("an unknown name suggests the one known name a slip away from it, and none when it is far from all or near two")
    func suggestion() {
        func nearest(_ name: String) -> String? {
            do { _ = try PolicyRegistry.policy(named: name) } catch { return error.nearest }
            return "found"
        }
        #expect(nearest("s3fif") == "s3fifo")
        #expect(nearest("Sieeve") == "sieve")
        #expect(nearest("w_tinylfu") == "wtinylfu")
        #expect(nearest("clok") == "clock")
        #expect(nearest("yylru") == "yy-lru")
        #expect(nearest("zzzzzz") == nil)
        #expect(nearest("x") == nil)
        // Equally near lru and lfu (one substitution each): no guess.
        #expect(nearest("lXu") == nil)
        #expect(PolicyLookupError(name: "s3fif", known: ["s3fifo", "lru"]).nearest == "s3fifo")
        #expect(PolicyLookupError(name: "qqqq", known: ["s3fifo", "lru"]).nearest == nil)
        // The command line says it after the known names.
        let message = RunConfigurationError.unknownPolicy(PolicyLookupError(name: "s3fif", known: ["s3fifo", "lru"])).commandLineMessage
        #expect(message == "unknown policy 's3fif' (known: s3fifo, lru); did you mean 's3fifo'? (see 'cachebench policies')")
        #expect(RunConfigurationError.unknownPolicy(PolicyLookupError(name: "qqqq", known: ["lru"])).commandLineMessage
                == "unknown policy 'qqqq' (known: lru); see 'cachebench policies'")
        // A name known but not provided (LRB, one edit from lru) gets its reason alone.
        for name in ["lrb", "3lcache", "glcache"] {
            do {
                _ = try PolicyRegistry.policy(named: name)
                Issue.record("\(name) was found")
            } catch {
                let message = RunConfigurationError.unknownPolicy(error).commandLineMessage
                #expect(message.contains("is not provided") && !message.contains("did you mean"), "\(message)")
            }
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
