import PhotoPipeline
import Testing

/// The `CLASSIC_PHOTOS_*` variables, as the configuration reads them.
@Suite struct AppConfigurationTests {
    @Test("No variables: the defaults")
    func defaults() {
        let configuration = AppConfiguration.fromEnvironment([:])
        #expect(configuration == AppConfiguration())
        #expect(configuration.tracePath == nil && configuration.localeDirectory == nil)
        #expect(configuration.dataDirectory == nil && configuration.decoderPath == nil)
        #expect(configuration.decodeSeconds == 30 && configuration.sandbox == .confined)
        #expect(configuration.programSearchPath == "/usr/bin:/bin")
        #expect(!configuration.testSwitches.decoderFaults && !configuration.testSwitches.traceFrames)
        #expect(configuration.testSwitches.scrollQuietMilliseconds == 150)
        #expect(configuration.testSwitches.publicAddresses.isEmpty)
    }

    @Test("Every variable is read into its field")
    func everyVariable() {
        let configuration = AppConfiguration.fromEnvironment([
            "CLASSIC_PHOTOS_TRACE": "/tmp/trace.jsonl", "CLASSIC_PHOTOS_LOCALEDIR": "/opt/locale",
            "CLASSIC_PHOTOS_DATADIR": "/opt/data", "CLASSIC_PHOTOS_DECODER": "/opt/decoder",
            "CLASSIC_PHOTOS_DECODE_SECONDS": "2.5", "CLASSIC_PHOTOS_SANDBOX": "no-bwrap",
            "CLASSIC_PHOTOS_DECODER_FAULTS": "1", "CLASSIC_PHOTOS_SCROLL_QUIET_MS": "40",
            "CLASSIC_PHOTOS_TRACE_FRAMES": "1", "CLASSIC_PHOTOS_PUBLIC_ADDRESSES": " 127.0.0.2, ::1 ,,",
            "CLASSIC_PHOTOS_WATCH_LIMIT": "12", "CLASSIC_PHOTOS_TREE_LEAD": "always", "PATH": "/opt/bin",
            "CLASSIC_PHOTOS_WATCH_DELAY_MS": "1500", "CLASSIC_PHOTOS_FILE_WORK_DELAY_MS": "7",
            "CLASSIC_PHOTOS_LIST_REST_DELAY_MS": "3000", "UNRELATED": "x",
        ])
        #expect(configuration.tracePath == "/tmp/trace.jsonl")
        #expect(configuration.localeDirectory == "/opt/locale")
        #expect(configuration.dataDirectory == "/opt/data")
        #expect(configuration.decoderPath == "/opt/decoder")
        #expect(configuration.decodeSeconds == 2.5)
        #expect(configuration.sandbox == .withoutBubblewrap)
        #expect(configuration.programSearchPath == "/opt/bin")
        #expect(configuration.testSwitches.decoderFaults)
        #expect(configuration.testSwitches.scrollQuietMilliseconds == 40)
        #expect(configuration.testSwitches.traceFrames)
        #expect(configuration.testSwitches.publicAddresses == ["127.0.0.2", "::1"])
        #expect(configuration.testSwitches.watchLimit == 12)
        #expect(configuration.testSwitches.treeLeadAlways)
        #expect(configuration.testSwitches.watchDelayMilliseconds == 1500)
        #expect(configuration.testSwitches.fileWorkDelayMilliseconds == 7)
        #expect(configuration.testSwitches.listRestDelayMilliseconds == 3000)
        #expect(AppConfiguration.Variable.allCases.count == 15)
    }

    @Test("Values that cannot be read leave the defaults; switches are on only for 1")
    func unreadableValues() {
        let configuration = AppConfiguration.fromEnvironment([
            "CLASSIC_PHOTOS_DECODE_SECONDS": "soon", "CLASSIC_PHOTOS_SCROLL_QUIET_MS": "-5",
            "CLASSIC_PHOTOS_SANDBOX": "maybe", "CLASSIC_PHOTOS_DECODER_FAULTS": "yes",
            "CLASSIC_PHOTOS_TRACE_FRAMES": "true", "CLASSIC_PHOTOS_LOCALEDIR": "",
        ])
        #expect(configuration.decodeSeconds == 30)
        #expect(configuration.testSwitches.scrollQuietMilliseconds == 150)
        #expect(configuration.sandbox == .confined)
        #expect(!configuration.testSwitches.decoderFaults && !configuration.testSwitches.traceFrames)
        #expect(configuration.localeDirectory == nil) // empty: as if unset
        #expect(AppConfiguration.fromEnvironment(["CLASSIC_PHOTOS_SANDBOX": "off"]).sandbox == .off)
        // An empty trace path is kept: `--trace` is consulted first, and empty means no trace.
        #expect(AppConfiguration.fromEnvironment(["CLASSIC_PHOTOS_TRACE": ""]).tracePath == "")
    }
}
