@testable import Output
import Testing

/// `--audio-device`: ALSA's playback devices as `/proc/asound/pcm` lists them, and the names a
/// person gives them.
@Suite struct AudioDeviceTests {
    /// An Intel HDA card with analog out and three HDMI outputs, a USB headset, a capture-only device.
    static let pcm = """
        00-00: ALC887-VD Analog : ALC887-VD Analog : playback 1 : capture 1
        00-02: ALC887-VD Alt Analog : ALC887-VD Alt Analog : capture 1
        00-03: HDMI 0 : HDMI 0 : playback 1
        00-07: HDMI 1 : HDMI 1 : playback 1
        00-08: HDMI 2 : HDMI 2 : playback 1
        01-00: USB Audio : USB Audio : playback 1 : capture 1
        """

    @Test func digitalLinksAreToldFromAnalogOutputs() {
        let devices = AudioDevice.playbackDevices(pcmList: Self.pcm + "\n02-01: ALC1220 Digital : ALC1220 Digital : playback 1\n03-00: vc4-hdmi-0 : MAI PCM i2s-hifi-0 : playback 1")
        #expect(devices.filter(\.isDigitalLink).map(\.description) == ["hw:0,3 HDMI 0", "hw:0,7 HDMI 1", "hw:0,8 HDMI 2", "hw:2,1 ALC1220 Digital", "hw:3,0 vc4-hdmi-0"])
    }

    @Test func playbackDevicesAreRead() {
        let devices = AudioDevice.playbackDevices(pcmList: Self.pcm)
        #expect(devices.map(\.description) == ["hw:0,0 ALC887-VD Analog", "hw:0,3 HDMI 0", "hw:0,7 HDMI 1", "hw:0,8 HDMI 2", "hw:1,0 USB Audio"])
        #expect(AudioDevice.playbackDevices(pcmList: "").isEmpty)
        #expect(AudioDevice.playbackDevices(pcmList: "garbage\n: : :\nxx-yy: A : A : playback 1").isEmpty)
    }

    @Test func aDeviceIsNamedByNumberOrName() throws {
        let devices = AudioDevice.playbackDevices(pcmList: Self.pcm)
        #expect(try AudioDevice.find("hw:0,7", in: devices).name == "HDMI 1")
        #expect(try AudioDevice.find("plughw:1,0", in: devices).name == "USB Audio")
        #expect(try AudioDevice.find("0,3", in: devices).alsaName == "plughw:0,3")
        #expect(try AudioDevice.find("hdmi 2", in: devices).device == 8)
        #expect(try AudioDevice.find("usb", in: devices).card == 1)
    }

    @Test func aWrongNameSaysWhyAndListsTheDevices() {
        let devices = AudioDevice.playbackDevices(pcmList: Self.pcm)
        #expect(throws: AudioDeviceError.self) { try AudioDevice.find("hw:0,2", in: devices) }
        do {
            _ = try AudioDevice.find("hdmi", in: devices)
            Issue.record("three HDMI devices: not one")
        } catch {
            #expect(error.reason == "'hdmi' names 3 devices; give its hw:CARD,DEVICE")
            #expect(error.available.count == 3)
        }
        do {
            _ = try AudioDevice.find("Speakers", in: [])
            Issue.record("no device")
        } catch {
            #expect(error.description == "audio device 'Speakers': no playback device is called 'Speakers'; this machine has no playback device (no sound card)")
        }
    }

    @Test func theChosenDeviceIsTheSinkOnADisplayNotHeadless() {
        let hdmi = AudioDevice(card: 0, device: 3, name: "HDMI 0")
        // async=false: the output must reach PLAYING before any channel's sound comes (the guest
        // test's HDA card found an output that never started).
        #expect(OutputSink.kms.audioDescription(soundCard: true, device: hdmi) == "alsasink name=asink device=plughw:0,3 async=false")
        #expect(OutputSink.window.audioDescription(soundCard: true, device: hdmi) == "alsasink name=asink device=plughw:0,3 async=false")
        #expect(OutputSink.headless.audioDescription(soundCard: true, device: hdmi).hasPrefix("fakesink"))
        #expect(OutputSink.kms.audioDescription(soundCard: false).hasPrefix("fakesink"), "no sound card: silent, never failing")
        #expect(OutputSink.kms.audioDescription(soundCard: true) == "autoaudiosink name=asink")
    }
}
