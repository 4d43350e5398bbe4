import CacheBench

enum GenerateCommand {
    static var help: String {
        var text = """
        USAGE: cachebench generate KIND [--seed N] [--requests N] [--output FILE] [kind options]

        Writes a synthetic trace as CSV (timestamp,key,size,op) to standard output or to FILE.
        The same kind, seed and options always give the same trace.

        OPTIONS:
          --seed N                The random seed (default 1).
          --requests N            The number of get rows (default: the kind's own).
          --output FILE           Write to FILE (whole, or not at all) instead of stdout.
          -h, --help              Show this help.

        KINDS:
        """
        for generator in GeneratorRegistry.all {
            text += "\n  \(generator.kind) (default \(generator.defaultRequests) requests)\n"
            text += "      \(generator.summary)\n"
            for parameter in generator.parameters {
                let option = "--\(parameter.name) \(parameter.defaultValue)"
                text += "      " + option.padding(toLength: 22, withPad: " ", startingAt: 0) + "  \(parameter.summary)\n"
            }
        }
        text += """

        EXIT STATUS:
          0 ok, 2 usage, 74 cannot write.

        EXAMPLE:
          cachebench generate image-feed --seed 7 --requests 100000 --output image-feed-7.csv
        """
        return text
    }

    /// Options every kind takes, plus every kind's own parameters; each kind checks its own.
    static var spec: CommandSpec {
        let parameters = GeneratorRegistry.all.flatMap { $0.parameters.map { "--" + $0.name } }
        return CommandSpec(name: "generate", valueOptions: Set(["--seed", "--requests", "--output"] + parameters),
                           positionals: 1...1, positionalName: "KIND")
    }

    static func run(_ words: [String]) throws(CommandLineError) {
        let arguments: Arguments
        let seed: UInt64
        let requests: Int?
        var options: [String: String] = [:]
        do throws(UsageError) {
            arguments = try Arguments(words, spec: spec)
            let rawSeed = arguments.value("--seed") ?? "1"
            guard let parsed = UInt64(rawSeed) else {
                throw UsageError("--seed \(rawSeed): expected a whole number from 0 to \(UInt64.max)")
            }
            seed = parsed
            requests = try arguments.integer("--requests")
            for (name, values) in arguments.values where !["--seed", "--requests", "--output"].contains(name) {
                options[String(name.dropFirst(2))] = values.last
            }
        } catch { throw .usage(error) }
        do throws(CacheBenchError) {
            let progress = ProgressReporter.isTerminal ? ProgressReporter(label: "generate \(arguments.positionals[0])") : nil
            try TraceGeneration.run(kind: arguments.positionals[0], seed: seed, requests: requests,
                                    options: GeneratorOptions(options), output: arguments.value("--output"), progress: progress)
        } catch { throw .run(error) }
    }
}
