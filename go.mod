module github.com/omni-tts/omni

go 1.26.8

require (
	github.com/alecthomas/kong v1.17.0
	github.com/klauspost/cpuid/v2 v2.4.2
	github.com/tetratelabs/wazero v1.12.0
	golang.org/x/sys v0.50.0
)

require golang.org/x/text v0.44.0
