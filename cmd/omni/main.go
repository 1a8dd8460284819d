// Command omni turns text into Qwen3-TTS speech codes on ordinary CPUs.
// Run "omni --help" for the commands.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
