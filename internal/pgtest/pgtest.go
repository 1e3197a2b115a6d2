// Package pgtest runs a real PostgreSQL server for tests and benchmarks of
// the pg state backend: no mock, the server Debian packages (and voxform's
// users) run. The binaries are found through $VOXFORM_PG_BIN (a directory
// holding initdb and postgres), then /usr/lib/postgresql/<newest>/bin, then
// PATH; ./scripts/deps.sh installs them. A test that needs the server and
// cannot find it fails, saying how to install it: it never skips.
//
// The server's data and socket are in a new temporary directory; it
// listens on a Unix socket there (trusted) and on a free loopback port
// (password authentication, so that tests see a password in a connection
// string). Run as root, the server runs as the "postgres" user that the
// Debian package creates, since PostgreSQL refuses to run as root.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/voxform/voxform/internal/servers"
)

// startTimeout bounds the wait for a server to accept connections.
const startTimeout = 60 * time.Second

// Superuser is the server's superuser name.
const Superuser = "voxform"

// Server is a running PostgreSQL server.
type Server struct {
	Dir      string // the temporary directory: data, socket, log
	Port     int    // the loopback port
	Password string // the superuser's password (loopback connections)

	bin  string
	cred *syscall.Credential
	opts Options

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
	log    servers.Log
	dbSeq  int
}

// Options tunes a server.
type Options struct {
	// Durable keeps PostgreSQL's defaults (fsync on, synchronous commit);
	// otherwise both are off, which tests can afford since they never
	// crash the server's machine. Benchmarks measure with Durable.
	Durable bool
}

// Run initialises a database cluster in a new temporary directory and
// starts a server on it. Stop ends it and removes the directory.
func Run(opts Options) (*Server, error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin, opts: opts, Password: "pw-" + servers.RandomHex(12)}
	s.Dir, err = os.MkdirTemp("", "voxform-pg-")
	if err != nil {
		return nil, err
	}
	if os.Geteuid() == 0 {
		if s.cred, err = postgresUser(); err != nil {
			os.RemoveAll(s.Dir)
			return nil, err
		}
		if err := os.Chown(s.Dir, int(s.cred.Uid), int(s.cred.Gid)); err != nil {
			os.RemoveAll(s.Dir)
			return nil, err
		}
	}
	if err := s.initdb(); err != nil {
		os.RemoveAll(s.Dir)
		return nil, err
	}
	addr, err := servers.FreeAddr()
	if err != nil {
		os.RemoveAll(s.Dir)
		return nil, err
	}
	s.Port = addr.Port
	if err := s.Start(); err != nil {
		os.RemoveAll(s.Dir)
		return nil, err
	}
	return s, nil
}

// BinDir finds the directory of PostgreSQL's server binaries.
func BinDir() (string, error) {
	if d := os.Getenv("VOXFORM_PG_BIN"); d != "" {
		if _, err := os.Stat(filepath.Join(d, "postgres")); err != nil {
			return "", fmt.Errorf("VOXFORM_PG_BIN: %w", err)
		}
		return d, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int { return versionOf(b) - versionOf(a) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "postgres")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("postgres"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errors.New("the PostgreSQL server is missing: run ./scripts/deps.sh (installs Debian's postgresql), or set VOXFORM_PG_BIN to the directory of initdb and postgres")
}

// versionOf is the major version in /usr/lib/postgresql/<version>/bin.
func versionOf(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// postgresUser is the credential of the "postgres" user.
func postgresUser() (*syscall.Credential, error) {
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root, PostgreSQL needs the postgres user (Debian's postgresql package creates it): %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func (s *Server) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(s.bin, name), args...)
	cmd.Dir = s.Dir
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8", "TZ=UTC")
	if s.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	}
	return cmd
}

func (s *Server) initdb() error {
	pwfile := filepath.Join(s.Dir, "pwfile")
	if err := os.WriteFile(pwfile, []byte(s.Password+"\n"), 0o600); err != nil {
		return err
	}
	if s.cred != nil {
		if err := os.Chown(pwfile, int(s.cred.Uid), int(s.cred.Gid)); err != nil {
			return err
		}
	}
	cmd := s.command("initdb", "-D", filepath.Join(s.Dir, "data"), "-U", Superuser, "--pwfile", pwfile,
		"--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--no-instructions")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("initdb: %v\n%s", err, out)
	}
	return os.Remove(pwfile)
}

// Start starts the server (again, after Stop or Kill) on its port.
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	args := []string{"-D", filepath.Join(s.Dir, "data"), "-k", s.Dir, "-p", strconv.Itoa(s.Port),
		"-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200"}
	if !s.opts.Durable {
		args = append(args, "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	}
	cmd := s.command("postgres", args...)
	cmd.Stdout, cmd.Stderr = &s.log, &s.log
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	s.cmd, s.exited = cmd, exited
	deadline := time.Now().Add(startTimeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn, err := pgx.Connect(ctx, s.SocketURL("postgres"))
		cancel()
		if err == nil {
			conn.Close(context.Background())
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("postgres exited: %s", s.log.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres not accepting connections after %v: %v\n%s", startTimeout, err, s.log.String())
		}
	}
}

// Stop shuts the server down (fast shutdown: sessions are ended).
func (s *Server) Stop() { s.signal(syscall.SIGINT) }

// Kill ends the server at once (SIGKILL), as a crash would.
func (s *Server) Kill() { s.signal(syscall.SIGKILL) }

func (s *Server) signal(sig syscall.Signal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Signal(sig)
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		<-s.exited
	}
	if sig == syscall.SIGKILL {
		// The postmaster's children outlive it: wait for them to go, or
		// the next start finds the shared memory in use.
		pidfile := filepath.Join(s.Dir, "data", "postmaster.pid")
		for range 300 {
			if _, err := os.Stat(pidfile); err != nil || !s.socketLive() {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		os.Remove(pidfile)
	}
	s.cmd = nil
}

func (s *Server) socketLive() bool {
	c, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port)))
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// Close stops the server and removes its directory.
func (s *Server) Close() {
	s.Stop()
	os.RemoveAll(s.Dir)
}

// Log is what the server printed.
func (s *Server) Log() string { return s.log.String() }

// SocketURL is a connection string to database db over the Unix socket
// (no password needed).
func (s *Server) SocketURL(db string) string {
	return fmt.Sprintf("postgres://%s@/%s?host=%s&port=%d&sslmode=disable", Superuser, db, url.QueryEscape(s.Dir), s.Port)
}

// URL is a connection string to database db over loopback TCP, with the
// password.
func (s *Server) URL(db string) string {
	u := url.URL{Scheme: "postgres", User: url.UserPassword(Superuser, s.Password),
		Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port)), Path: "/" + db, RawQuery: "sslmode=disable"}
	return u.String()
}

// CreateDatabase creates a new empty database and returns its name.
func (s *Server) CreateDatabase(ctx context.Context) (string, error) {
	s.mu.Lock()
	s.dbSeq++
	name := fmt.Sprintf("test_%d_%s", s.dbSeq, servers.RandomHex(3))
	s.mu.Unlock()
	conn, err := pgx.Connect(ctx, s.SocketURL("postgres"))
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", err
	}
	return name, nil
}

var (
	sharedOnce sync.Once
	shared     *Server
	sharedErr  error
)

// Shared returns the package's server, starting it at the first call; a
// test binary that calls it must end with Main, which stops it.
func Shared(t testing.TB) *Server {
	t.Helper()
	sharedOnce.Do(func() { shared, sharedErr = Run(Options{}) })
	if sharedErr != nil {
		t.Fatalf("postgres: %v", sharedErr)
	}
	return shared
}

// Main runs the tests and stops the shared server: call it from TestMain.
func Main(m *testing.M) int {
	code := m.Run()
	if shared != nil {
		shared.Close()
	}
	return code
}

// Database is a connection string (with the password, over loopback TCP)
// to a new empty database of the shared server.
func Database(t testing.TB) string {
	t.Helper()
	s := Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	name, err := s.CreateDatabase(ctx)
	if err != nil {
		t.Fatalf("create database: %v\n%s", err, s.Log())
	}
	return s.URL(name)
}
