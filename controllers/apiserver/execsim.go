package apiserver

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// Limits of the simulated container.
const (
	// maxShellLine bounds one line an interactive `sh` reads from stdin.
	maxShellLine = 64 << 10
	// maxSleep bounds a simulated sleep.
	maxSleep = 10 * time.Minute
)

// simContainer is the simulated inside of a running container, for exec:
// its environment and the files of its ConfigMap and Secret volumes,
// read from the store when the exec starts.
type simContainer struct {
	pod    *api.Pod
	c      *api.Container
	env    []string          // KEY=value, in order
	files  map[string][]byte // absolute path → content
	dirs   map[string]bool   // absolute directory paths
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// tty: an interactive sh prompts.
	tty bool
	// termSize returns the terminal's size (stty size), when a tty.
	termSize func() (termSize, bool)
}

// baseDirs are the directories of every simulated container's root.
var baseDirs = []string{"/bin", "/dev", "/etc", "/home", "/proc", "/root", "/sys", "/tmp", "/usr", "/var"}

// newSimContainer builds the container's view; lookup reads a ConfigMap
// ("configmaps") or Secret ("secrets") of the pod's namespace as
// key → value, ok false when absent.
func newSimContainer(pod *api.Pod, c *api.Container, lookup func(resource, name string) (map[string][]byte, bool)) *simContainer {
	s := &simContainer{pod: pod, c: c, files: map[string][]byte{}, dirs: map[string]bool{"/": true}}
	for _, d := range baseDirs {
		s.dirs[d] = true
	}
	host := pod.Spec.Hostname
	if host == "" {
		host = pod.Name
	}
	s.files["/etc/hostname"] = []byte(host + "\n")
	s.env = append(s.env, "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOSTNAME="+host)
	for _, e := range c.Env {
		v, ok := e.Value, true
		if f := e.ValueFrom; f != nil {
			switch {
			case f.ConfigMapKeyRef != nil:
				v, ok = lookupKey(lookup, "configmaps", f.ConfigMapKeyRef.Name, f.ConfigMapKeyRef.Key)
			case f.SecretKeyRef != nil:
				v, ok = lookupKey(lookup, "secrets", f.SecretKeyRef.Name, f.SecretKeyRef.Key)
			case f.FieldRef != nil:
				v, ok = fieldRef(pod, f.FieldRef.FieldPath)
			default:
				ok = false
			}
		}
		if ok {
			s.env = append(s.env, e.Name+"="+v)
		}
	}
	s.env = append(s.env, "HOME=/root")
	volumes := map[string]api.Volume{}
	for _, v := range pod.Spec.Volumes {
		volumes[v.Name] = v
	}
	for _, m := range c.VolumeMounts {
		v, ok := volumes[m.Name]
		if !ok {
			continue
		}
		var data map[string][]byte
		var items []api.KeyToPath
		switch {
		case v.ConfigMap != nil:
			data, _ = lookup("configmaps", v.ConfigMap.Name)
			items = v.ConfigMap.Items
		case v.Secret != nil:
			data, _ = lookup("secrets", v.Secret.SecretName)
			items = v.Secret.Items
		}
		s.addDir(m.MountPath)
		if len(items) == 0 {
			for k := range data {
				items = append(items, api.KeyToPath{Key: k, Path: k})
			}
		}
		for _, it := range items {
			if b, ok := data[it.Key]; ok {
				p := path.Join(m.MountPath, it.Path)
				s.addDir(path.Dir(p))
				s.files[p] = b
			}
		}
	}
	return s
}

func (s *simContainer) addDir(p string) {
	for p = path.Clean("/" + p); !s.dirs[p]; p = path.Dir(p) {
		s.dirs[p] = true
	}
}

func lookupKey(lookup func(string, string) (map[string][]byte, bool), resource, name, key string) (string, bool) {
	m, ok := lookup(resource, name)
	if !ok {
		return "", false
	}
	b, ok := m[key]
	return string(b), ok
}

func fieldRef(pod *api.Pod, p string) (string, bool) {
	switch p {
	case "metadata.name":
		return pod.Name, true
	case "metadata.namespace":
		return pod.Namespace, true
	case "metadata.uid":
		return string(pod.UID), true
	case "spec.nodeName":
		return pod.Spec.NodeName, true
	case "spec.serviceAccountName":
		return pod.Spec.ServiceAccountName, true
	case "status.podIP":
		return pod.Status.PodIP, true
	case "status.hostIP":
		return pod.Status.HostIP, true
	}
	return "", false
}

// run runs argv as a container runtime would exec it, and returns its
// exit code: an unknown executable is 126 with the OCI runtime's message
// on stderr.
func (s *simContainer) run(ctx context.Context, argv []string) int {
	if len(argv) == 0 {
		return 0
	}
	switch path.Base(argv[0]) {
	case "sh", "bash", "ash":
		return s.shell(ctx, argv)
	}
	code, found := s.builtin(ctx, argv)
	if !found {
		fmt.Fprintf(s.stderr, "OCI runtime exec failed: exec failed: unable to start container process: exec: %q: executable file not found in $PATH: unknown\r\n", argv[0])
		return 126
	}
	return code
}

// shell is a small `sh`: `sh -c SCRIPT`, or commands read from stdin a
// line at a time. Scripts are lists of simple commands separated by ;,
// && and ||, words split on blanks with '…' and "…" quoting and $VAR
// expansion; `exit [N]` ends it.
func (s *simContainer) shell(ctx context.Context, argv []string) int {
	name := path.Base(argv[0])
	if len(argv) >= 3 && argv[1] == "-c" {
		code, _ := s.script(ctx, name, argv[2])
		return code
	}
	if len(argv) > 1 {
		fmt.Fprintf(s.stderr, "%s: can't open '%s': No such file or directory\n", name, argv[1])
		return 2
	}
	r := bufio.NewReaderSize(s.stdin, 4096)
	code := 0
	for {
		if s.tty {
			wd := s.c.WorkingDir
			if wd == "" {
				wd = "/"
			}
			fmt.Fprintf(s.stdout, "%s # ", wd)
		}
		line, err := readLine(r, maxShellLine)
		if strings.TrimSpace(line) != "" {
			var exited bool
			code, exited = s.script(ctx, name, line)
			if exited {
				return code
			}
		}
		if err != nil || ctx.Err() != nil {
			return code
		}
	}
}

// readLine reads a line of at most limit bytes (the rest is dropped).
func readLine(r *bufio.Reader, limit int) (string, error) {
	var b []byte
	for {
		chunk, isPrefix, err := r.ReadLine()
		if len(b) < limit {
			b = append(b, chunk[:min(len(chunk), limit-len(b))]...)
		}
		if err != nil || !isPrefix {
			return strings.TrimSuffix(string(b), "\r"), err
		}
	}
}

// script runs one script; exited reports an `exit`.
func (s *simContainer) script(ctx context.Context, shell, src string) (code int, exited bool) {
	words, ops, err := s.parse(src)
	if err != nil {
		fmt.Fprintf(s.stderr, "%s: syntax error: %v\n", shell, err)
		return 2, true
	}
	for i, w := range words {
		if i > 0 {
			switch ops[i-1] {
			case "&&":
				if code != 0 {
					continue
				}
			case "||":
				if code == 0 {
					continue
				}
			}
		}
		if len(w) == 0 {
			continue
		}
		if w[0] == "exit" {
			if len(w) > 1 {
				n, err := strconv.Atoi(w[1])
				if err != nil {
					fmt.Fprintf(s.stderr, "%s: exit: Illegal number: %s\n", shell, w[1])
					return 2, true
				}
				return n & 0xff, true
			}
			return code, true
		}
		c, found := s.builtin(ctx, w)
		if !found {
			fmt.Fprintf(s.stderr, "%s: %s: not found\n", shell, w[0])
			c = 127
		}
		code = c
	}
	return code, false
}

// parse splits a script into simple commands (their words, quotes
// removed, $VAR expanded) and the operators between them.
func (s *simContainer) parse(src string) (cmds [][]string, ops []string, err error) {
	var words []string
	var cur strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	end := func(op string) {
		flush()
		cmds = append(cmds, words)
		words = nil
		ops = append(ops, op)
	}
	for i := 0; i < len(src); i++ {
		ch := src[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n':
			flush()
		case ch == ';':
			end(";")
		case ch == '&' && i+1 < len(src) && src[i+1] == '&':
			end("&&")
			i++
		case ch == '|' && i+1 < len(src) && src[i+1] == '|':
			end("||")
			i++
		case ch == '|' || ch == '>' || ch == '<' || ch == '&':
			return nil, nil, fmt.Errorf("%q is not supported by the simulated shell", string(ch))
		case ch == '\'':
			j := strings.IndexByte(src[i+1:], '\'')
			if j < 0 {
				return nil, nil, errors.New("unterminated quoted string")
			}
			cur.WriteString(src[i+1 : i+1+j])
			inWord, i = true, i+1+j
		case ch == '"':
			j := strings.IndexByte(src[i+1:], '"')
			if j < 0 {
				return nil, nil, errors.New("unterminated quoted string")
			}
			cur.WriteString(s.expandVars(src[i+1 : i+1+j]))
			inWord, i = true, i+1+j
		case ch == '$':
			j := i + 1
			for j < len(src) && (src[j] == '_' || src[j] >= 'a' && src[j] <= 'z' || src[j] >= 'A' && src[j] <= 'Z' || src[j] >= '0' && src[j] <= '9') {
				j++
			}
			cur.WriteString(s.getenv(src[i+1 : j]))
			inWord, i = true, j-1
		default:
			cur.WriteByte(ch)
			inWord = true
		}
	}
	flush()
	cmds = append(cmds, words)
	return cmds, ops, nil
}

func (s *simContainer) expandVars(str string) string {
	var b strings.Builder
	for i := 0; i < len(str); i++ {
		if str[i] != '$' {
			b.WriteByte(str[i])
			continue
		}
		j := i + 1
		for j < len(str) && (str[j] == '_' || str[j] >= 'a' && str[j] <= 'z' || str[j] >= 'A' && str[j] <= 'Z' || str[j] >= '0' && str[j] <= '9') {
			j++
		}
		b.WriteString(s.getenv(str[i+1 : j]))
		i = j - 1
	}
	return b.String()
}

func (s *simContainer) getenv(name string) string {
	for i := len(s.env) - 1; i >= 0; i-- {
		if k, v, _ := strings.Cut(s.env[i], "="); k == name {
			return v
		}
	}
	return ""
}

// builtin runs one simulated executable; found is false for a command
// the container does not have.
func (s *simContainer) builtin(ctx context.Context, argv []string) (code int, found bool) {
	name, args := path.Base(argv[0]), argv[1:]
	switch name {
	case "true", ":":
		return 0, true
	case "false":
		return 1, true
	case "echo":
		nl := "\n"
		if len(args) > 0 && args[0] == "-n" {
			nl, args = "", args[1:]
		}
		fmt.Fprint(s.stdout, strings.Join(args, " ")+nl)
		return 0, true
	case "env", "printenv":
		if name == "printenv" && len(args) > 0 {
			code := 0
			for _, a := range args {
				if v, ok := s.lookupEnv(a); ok {
					fmt.Fprintln(s.stdout, v)
				} else {
					code = 1
				}
			}
			return code, true
		}
		for _, e := range s.env {
			fmt.Fprintln(s.stdout, e)
		}
		return 0, true
	case "hostname":
		fmt.Fprint(s.stdout, string(s.files["/etc/hostname"]))
		return 0, true
	case "pwd":
		wd := s.c.WorkingDir
		if wd == "" {
			wd = "/"
		}
		fmt.Fprintln(s.stdout, wd)
		return 0, true
	case "sleep":
		d := time.Duration(0)
		if len(args) > 0 {
			f, err := strconv.ParseFloat(args[0], 64)
			if err != nil || f < 0 {
				fmt.Fprintf(s.stderr, "sleep: invalid number '%s'\n", args[0])
				return 1, true
			}
			d = min(time.Duration(f*float64(time.Second)), maxSleep)
		}
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return 130, true
		}
		return 0, true
	case "cat":
		if len(args) == 0 || (len(args) == 1 && args[0] == "-") {
			if _, err := io.Copy(s.stdout, s.stdin); err != nil {
				return 1, true
			}
			return 0, true
		}
		code := 0
		for _, a := range args {
			p := s.abs(a)
			if b, ok := s.files[p]; ok {
				s.stdout.Write(b)
			} else if s.dirs[p] {
				fmt.Fprintf(s.stderr, "cat: read error: Is a directory\n")
				code = 1
			} else {
				fmt.Fprintf(s.stderr, "cat: can't open '%s': No such file or directory\n", a)
				code = 1
			}
		}
		return code, true
	case "ls":
		return s.ls(args), true
	case "stty":
		return s.stty(args), true
	case "tar":
		return s.tar(args), true
	}
	return 0, false
}

// stty answers `stty size` (rows and columns) from the size the client
// last sent on the resize channel; without a terminal, busybox's error.
func (s *simContainer) stty(args []string) int {
	if s.termSize == nil {
		fmt.Fprintln(s.stderr, "stty: standard input: Not a tty")
		return 1
	}
	if len(args) != 1 || args[0] != "size" {
		fmt.Fprintf(s.stderr, "stty: only `stty size` is simulated\n")
		return 1
	}
	ts, _ := s.termSize()
	fmt.Fprintf(s.stdout, "%d %d\n", ts.Height, ts.Width)
	return 0
}

func (s *simContainer) lookupEnv(name string) (string, bool) {
	for i := len(s.env) - 1; i >= 0; i-- {
		if k, v, _ := strings.Cut(s.env[i], "="); k == name {
			return v, true
		}
	}
	return "", false
}

func (s *simContainer) abs(p string) string {
	if !strings.HasPrefix(p, "/") {
		wd := s.c.WorkingDir
		if wd == "" {
			wd = "/"
		}
		p = path.Join(wd, p)
	}
	return path.Clean(p)
}

// children lists the names directly under directory dir.
func (s *simContainer) children(dir string) []string {
	seen := map[string]bool{}
	add := func(p string) {
		if p != dir && path.Dir(p) == dir {
			seen[path.Base(p)] = true
		}
	}
	for d := range s.dirs {
		add(d)
	}
	for f := range s.files {
		add(f)
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func (s *simContainer) ls(args []string) int {
	var targets []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			targets = append(targets, a)
		}
	}
	if len(targets) == 0 {
		targets = []string{"."}
	}
	code := 0
	for _, a := range targets {
		p := s.abs(a)
		switch {
		case s.dirs[p]:
			if len(targets) > 1 {
				fmt.Fprintf(s.stdout, "%s:\n", a)
			}
			for _, n := range s.children(p) {
				fmt.Fprintln(s.stdout, n)
			}
		case s.files[p] != nil:
			fmt.Fprintln(s.stdout, a)
		default:
			fmt.Fprintf(s.stderr, "ls: %s: No such file or directory\n", a)
			code = 1
		}
	}
	return code
}

// tar serves kubectl cp: `tar cf - PATH...` archives the simulated
// files under the paths; extracting (`tar xf -`) is refused, the
// container's filesystem being read-only.
func (s *simContainer) tar(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(s.stderr, "tar: no operation given")
		return 2
	}
	flags := strings.TrimPrefix(args[0], "-")
	rest := args[1:]
	switch {
	case strings.Contains(flags, "x"):
		tr := tar.NewReader(s.stdin)
		code := 0
		for {
			h, err := tr.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					fmt.Fprintf(s.stderr, "tar: %v\n", err)
					return 2
				}
				return code
			}
			fmt.Fprintf(s.stderr, "tar: %s: Cannot open: Read-only file system\n", h.Name)
			code = 2
		}
	case strings.Contains(flags, "c"):
		var paths []string
		for i := 0; i < len(rest); i++ {
			switch a := rest[i]; {
			case a == "-" || a == "f" || a == "-f":
			case a == "-C" && i+1 < len(rest):
				i++
			case strings.HasPrefix(a, "-"):
			default:
				paths = append(paths, a)
			}
		}
		tw := tar.NewWriter(s.stdout)
		code := 0
		for _, a := range paths {
			p := s.abs(a)
			name := strings.TrimPrefix(p, "/")
			switch {
			case s.files[p] != nil:
				s.tarFile(tw, name, s.files[p])
			case s.dirs[p]:
				var files []string
				for f := range s.files {
					if strings.HasPrefix(f, p+"/") || p == "/" {
						files = append(files, f)
					}
				}
				slices.Sort(files)
				_ = tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: 0o755})
				for _, f := range files {
					s.tarFile(tw, strings.TrimPrefix(f, "/"), s.files[f])
				}
			default:
				fmt.Fprintf(s.stderr, "tar: %s: Cannot stat: No such file or directory\n", a)
				code = 2
			}
		}
		_ = tw.Close()
		return code
	}
	fmt.Fprintf(s.stderr, "tar: invalid option -- '%s'\n", flags)
	return 2
}

func (s *simContainer) tarFile(tw *tar.Writer, name string, b []byte) {
	_ = tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(b))})
	_, _ = tw.Write(b)
}

// ttyIn is the line discipline of a terminal, for an exec with a tty:
// what the client types (kubectl's terminal is raw) is echoed, edited
// (backspace, ^C, ^U) and handed over a line at a time; ^D on an empty
// line is the end of input.
type ttyIn struct {
	r    io.Reader
	echo io.Writer
	line []byte
	out  []byte
	eof  bool
}

func (t *ttyIn) Read(p []byte) (int, error) {
	var buf [512]byte
	for len(t.out) == 0 {
		if t.eof {
			return 0, io.EOF
		}
		n, err := t.r.Read(buf[:])
		var echo []byte
		for _, c := range buf[:n] {
			switch c {
			case '\r', '\n':
				echo = append(echo, '\r', '\n')
				t.out = append(append(t.out, t.line...), '\n')
				t.line = t.line[:0]
			case 0x7f, 0x08:
				if len(t.line) > 0 {
					t.line = t.line[:len(t.line)-1]
					echo = append(echo, '\b', ' ', '\b')
				}
			case 0x03, 0x15: // ^C, ^U: the line is dropped
				echo = append(echo, '^', '@'+c, '\r', '\n')
				t.line = t.line[:0]
			case 0x04: // ^D
				if len(t.line) == 0 {
					t.eof = true
				}
				t.out, t.line = append(t.out, t.line...), t.line[:0]
			default:
				if len(t.line) < maxShellLine {
					t.line = append(t.line, c)
					echo = append(echo, c)
				}
			}
		}
		if len(echo) > 0 {
			_, _ = t.echo.Write(echo)
		}
		if err != nil {
			t.eof = true
			t.out, t.line = append(t.out, t.line...), nil
		}
	}
	n := copy(p, t.out)
	t.out = t.out[n:]
	return n, nil
}

// crlfWriter writes "\n" as "\r\n", as a terminal's output
// processing does.
type crlfWriter struct{ w io.Writer }

func (c crlfWriter) Write(p []byte) (int, error) {
	if _, err := c.w.Write(bytes.ReplaceAll(p, []byte("\n"), []byte("\r\n"))); err != nil {
		return 0, err
	}
	return len(p), nil
}
