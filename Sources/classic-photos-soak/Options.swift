import Foundation

/// What a soak run is asked to do, from its command line.
struct Options {
    /// The seed every choice of the run comes from; the same seed replays the same steps.
    var seed: UInt64 = UInt64.random(in: 1...999_999)
    /// How long to run, in seconds.
    var seconds: Double = 120
    /// Actions a second, as a restless person makes them.
    var rate: Double = 2
    /// Stop after this step (to replay a failure up to where it happened).
    var steps: Int?
    /// Photos in the big folder (and, a little more, in the tree, the list and the share).
    var photos = 10_000
    /// The app's resident memory may not pass this, in megabytes.
    var maxResidentMB = 400
    /// Stalls of 50 ms or more allowed per 1,000 actions; nil: counted and reported only.
    var maxStallsPerThousand: Double?
    /// The build of the app to drive (`debug` or `release`).
    var configuration = "debug"
    /// Keep the photos, settings and traces made for the run.
    var keep = false

    static let usage = """
        classic-photos-soak [--seed N] [--seconds S | --minutes M] [--rate R] [--steps N]
                            [--photos N] [--max-rss-mb MB] [--max-stalls-per-1000 N]
                            [--configuration debug|release] [--keep]
        """

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var rest = arguments[...]
        func value(_ name: String) throws -> String {
            guard let next = rest.popFirst() else { throw OptionsError("\(name) needs a value") }
            return next
        }
        func number<T: LosslessStringConvertible>(_ name: String) throws -> T {
            let text = try value(name)
            guard let number = T(text) else { throw OptionsError("\(name): “\(text)” is not a number") }
            return number
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--seed": options.seed = try number(argument)
            case "--seconds": options.seconds = try number(argument)
            case "--minutes": options.seconds = try 60 * (number(argument) as Double)
            case "--rate": options.rate = try number(argument)
            case "--steps": options.steps = try number(argument)
            case "--photos": options.photos = try number(argument)
            case "--max-rss-mb": options.maxResidentMB = try number(argument)
            case "--max-stalls-per-1000": options.maxStallsPerThousand = try number(argument)
            case "--configuration": options.configuration = try value(argument)
            case "--keep": options.keep = true
            case "--help", "-h": throw OptionsError(usage)
            default: throw OptionsError("unknown argument \(argument)\n\(usage)")
            }
        }
        guard options.rate > 0, options.seconds > 0, options.photos >= 100 else {
            throw OptionsError("the rate, the time and the photos must be positive (100 photos at least)")
        }
        return options
    }
}

struct OptionsError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
