import CacheBench
import EvictionPolicies

enum PoliciesCommand {
    static let help = """
    USAGE: cachebench policies [--format table|json|csv|markdown] [--output FILE]

    Lists every policy: its name, what it reproduces (library and version, or paper), its rule,
    and the parameters --option accepts with their defaults. The table and the Markdown end with
    the libCacheSim algorithms that are not provided (\(PolicyRegistry.notProvided.map(\.name).joined(separator: ", "))) and why.

    OPTIONS:
      --format F              table (default), json, csv or markdown.
      --output FILE           Write the list to FILE (whole, or not at all) instead of stdout.
      -h, --help              Show this help.

    EXIT STATUS:
      0 ok, 2 usage, 74 cannot write.
    """

    static let spec = CommandSpec(name: "policies", valueOptions: ["--format", "--output"], positionals: 0...0)

    static func run(_ words: [String], registry: PolicyRegistry) throws(CommandLineError) {
        let arguments: Arguments
        let format: ReportFormat
        do throws(UsageError) {
            arguments = try Arguments(words, spec: spec)
            format = try arguments.choice("--format", default: ReportFormat.table)
        } catch { throw .usage(error) }
        do throws(CacheBenchError) {
            // A name a registered policy took (another package's `lrb`) is provided after all.
            let notProvided = PolicyRegistry.notProvided.filter { missing in
                ([missing.name] + missing.aliases).allSatisfy { (try? registry.policy(named: $0)) == nil }
            }
            try Output.emit(PolicyCatalog.render(registry.descriptors, as: format, notProvided: notProvided), to: arguments.value("--output"))
        } catch { throw .run(error) }
    }
}
