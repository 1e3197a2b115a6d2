package listen_test

import (
	"fmt"
	"strings"

	"github.com/voxform/voxform/listen"
)

// show prints a check's verdict and why.
func show(sent, heard string) {
	r, err := listen.Check(sent, heard, listen.DefaultThresholds())
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Printf("pass %v: wer %.3f, cer %.3f, longest run %d, missing tail %d\n",
		r.Pass, r.WER, r.CER, r.LongestRun.Words(), r.MissingTail)
	for _, f := range r.Failures {
		fmt.Println(f)
	}
}

// A chunk whose last sentence was cut off: the tail fails, and the run
// with it.
func ExampleCheck_truncated() {
	show("Your order has been received. We will call you back today.",
		"your order has been received we will")
	// Output:
	// pass false: wer 0.364, cer 0.357, longest run 4, missing tail 4
	// cer: 0.357 over 0.200
	// longest_run: 4 words over 2: sent "call you back today" (words 8 to 11), heard ""
	// missing_tail: the last 4 words sent were not heard, over 1
}

// Five garbled words inside a long good text: the rates stay low, the
// longest run catches them.
func ExampleCheck_garbledRun() {
	good := strings.Repeat("the river runs through the quiet valley and the village sleeps beside it ", 6)
	sent := good + "while the old miller tells his stories to the children " + good
	heard := good + "while the old blorp snee wub tak fen to the children " + good
	show(sent, heard)
	// Output:
	// pass false: wer 0.030, cer 0.020, longest run 5, missing tail 0
	// longest_run: 5 words over 2: sent "miller tells his stories" (words 82 to 85), heard "blorp snee wub tak fen"
}

// Silence where a prompt should be.
func ExampleCheck_silence() {
	show("नमस्ते, आपका स्वागत है।", "")
	// Output:
	// pass false: wer 1.000, cer 1.000, longest run 4, missing tail 4
	// silence: nothing heard of 4 words sent
	// cer: 1.000 over 0.200
	// wer: 1.000 over 0.400
	// longest_run: 4 words over 2: sent "नमस्ते आपका स्वागत है" (words 1 to 4), heard ""
	// missing_tail: the last 4 words sent were not heard, over 1
}

// A recognizer's single-word substitution on clean audio passes at the
// defaults, as does the ITN writing a number in digits.
func ExampleCheck_substitution() {
	show("Please hold the line while we connect your call to the support team, it takes twenty five seconds.",
		"please hold the line while we connect your call to the sport team it takes 25 seconds")
	// Output:
	// pass true: wer 0.059, cer 0.023, longest run 1, missing tail 0
}
