// Package cdp drives a headless Chromium over the DevTools protocol, for
// the report page's browser tests and its benchmark: start the browser
// with a profile of its own, open one page, navigate, evaluate
// JavaScript, take screenshots, and collect console errors, uncaught
// exceptions and error log entries.
package cdp

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os/exec"
	"regexp"
	"sync"
	"syscall"
	"time"

	"github.com/gorilla/websocket"
)

// Timeout bounds each command and each wait for the browser.
const Timeout = 60 * time.Second

// Browser is a headless Chromium with one page open.
type Browser struct {
	cmd    *exec.Cmd
	cancel context.CancelFunc
	conn   *websocket.Conn

	mu      sync.Mutex
	nextID  int64
	waiting map[int64]chan reply
	events  map[string][]chan json.RawMessage
	errors  []string
}

type reply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// Find returns the path of Debian's chromium.
func Find() (string, error) {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("chromium is not on the PATH (install it: scripts/deps.sh)")
}

var devtoolsRE = regexp.MustCompile(`DevTools listening on (ws://\S+)`)

// Start starts the chromium at bin headless, with its profile in
// profileDir, and opens one page. Close stops it.
func Start(bin, profileDir string) (*Browser, error) {
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check", "--mute-audio",
		"--autoplay-policy=no-user-gesture-required", "--remote-debugging-port=0",
		"--user-data-dir="+profileDir, "--window-size=1280,1000", "about:blank")
	// Its own process group, killed whole: chromium's renderer, zygote and
	// crashpad processes outlive a kill of the browser process alone and
	// go on writing into profileDir.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	stderr, err := cmd.StderrPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, fmt.Errorf("start chromium: %w", err)
	}
	b := &Browser{cmd: cmd, cancel: cancel, waiting: map[int64]chan reply{}, events: map[string][]chan json.RawMessage{}}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := devtoolsRE.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	if err := b.open(found); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// open connects to the browser, creates a page and connects to it.
func (b *Browser) open(found chan string) error {
	var wsURL string
	select {
	case wsURL = <-found:
	case <-time.After(Timeout):
		return errors.New("chromium did not start its DevTools server in time")
	}
	if err := b.dial(wsURL); err != nil {
		return err
	}
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := b.Call("Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		return err
	}
	b.conn.Close()
	u, err := url.Parse(wsURL)
	if err != nil {
		return err
	}
	if err := b.dial("ws://" + u.Host + "/devtools/page/" + target.TargetID); err != nil {
		return err
	}
	for _, domain := range []string{"Page", "Runtime", "Log"} {
		if err := b.Call(domain+".enable", nil, nil); err != nil {
			return err
		}
	}
	return nil
}

// Close stops the browser.
func (b *Browser) Close() {
	if b.conn != nil {
		b.conn.Close()
	}
	b.cancel()
	_ = b.cmd.Wait()
}

func (b *Browser) dial(u string) error {
	d := websocket.Dialer{HandshakeTimeout: 10 * time.Second, ReadBufferSize: 1 << 20}
	conn, _, err := d.Dial(u, nil)
	if err != nil {
		return fmt.Errorf("connect to chromium: %w", err)
	}
	conn.SetReadLimit(256 << 20)
	b.conn = conn
	go b.read(conn)
	return nil
}

// read dispatches replies and events until the connection closes.
func (b *Browser) read(conn *websocket.Conn) {
	for {
		var msg struct {
			ID     int64           `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			reply
		}
		if err := conn.ReadJSON(&msg); err != nil {
			return
		}
		b.mu.Lock()
		if msg.ID != 0 {
			if ch := b.waiting[msg.ID]; ch != nil {
				ch <- msg.reply
				delete(b.waiting, msg.ID)
			}
		} else {
			b.noteError(msg.Method, msg.Params)
			for _, ch := range b.events[msg.Method] {
				select {
				case ch <- msg.Params:
				default:
				}
			}
		}
		b.mu.Unlock()
	}
}

// noteError keeps console errors, uncaught exceptions and error log
// entries (a resource that failed to load, a refused script).
func (b *Browser) noteError(method string, params json.RawMessage) {
	switch method {
	case "Runtime.consoleAPICalled":
		var p struct {
			Type string `json:"type"`
			Args []struct {
				Value       any    `json:"value"`
				Description string `json:"description"`
			} `json:"args"`
		}
		if json.Unmarshal(params, &p) == nil && (p.Type == "error" || p.Type == "assert") {
			b.errors = append(b.errors, fmt.Sprintf("console.%s: %v", p.Type, p.Args))
		}
	case "Runtime.exceptionThrown":
		b.errors = append(b.errors, "exception: "+string(params))
	case "Log.entryAdded":
		var p struct {
			Entry struct {
				Level, Text, URL string
			} `json:"entry"`
		}
		if json.Unmarshal(params, &p) == nil && p.Entry.Level == "error" {
			b.errors = append(b.errors, fmt.Sprintf("log: %s %s", p.Entry.Text, p.Entry.URL))
		}
	}
}

// on returns a channel that receives the next events of method.
func (b *Browser) on(method string) chan json.RawMessage {
	ch := make(chan json.RawMessage, 16)
	b.mu.Lock()
	b.events[method] = append(b.events[method], ch)
	b.mu.Unlock()
	return ch
}

// Call sends a command and decodes its result into out (when not nil).
func (b *Browser) Call(method string, params any, out any) error {
	if params == nil {
		params = map[string]any{}
	}
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	ch := make(chan reply, 1)
	b.waiting[id] = ch
	err := b.conn.WriteJSON(map[string]any{"id": id, "method": method, "params": params})
	b.mu.Unlock()
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			return fmt.Errorf("%s: %s", method, r.Error.Message)
		}
		if out != nil {
			if err := json.Unmarshal(r.Result, out); err != nil {
				return fmt.Errorf("%s: %w", method, err)
			}
		}
		return nil
	case <-time.After(Timeout):
		return fmt.Errorf("%s: no answer from chromium in time", method)
	}
}

// Navigate opens url and waits for its load event, returning the time
// from the request to the event.
func (b *Browser) Navigate(url string) (time.Duration, error) {
	loaded := b.on("Page.loadEventFired")
	start := time.Now()
	if err := b.Call("Page.navigate", map[string]any{"url": url}, nil); err != nil {
		return 0, err
	}
	select {
	case <-loaded:
		return time.Since(start), nil
	case <-time.After(Timeout):
		return 0, fmt.Errorf("%s did not load in time", url)
	}
}

// Eval evaluates a JavaScript expression in the page, awaiting a promise,
// and decodes its value into out (when not nil).
func (b *Browser) Eval(expr string, out any) error {
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := b.Call("Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true}, &r); err != nil {
		return err
	}
	if r.ExceptionDetails != nil {
		return fmt.Errorf("evaluate: %s %s", r.ExceptionDetails.Text, r.ExceptionDetails.Exception.Description)
	}
	if out != nil && len(r.Result.Value) > 0 {
		if err := json.Unmarshal(r.Result.Value, out); err != nil {
			return fmt.Errorf("evaluate: %w (value %s)", err, r.Result.Value)
		}
	}
	return nil
}

// Screenshot returns a PNG of the whole page.
func (b *Browser) Screenshot() ([]byte, error) {
	var r struct {
		Data string `json:"data"`
	}
	if err := b.Call("Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true}, &r); err != nil {
		return nil, err
	}
	png, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil || len(png) < 8 || string(png[1:4]) != "PNG" {
		return nil, fmt.Errorf("screenshot: not a PNG (%v)", err)
	}
	return png, nil
}

// Errors returns the console errors, uncaught exceptions and error log
// entries collected so far, and forgets them.
func (b *Browser) Errors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	e := b.errors
	b.errors = nil
	return e
}
