package main

// What a container's process does once started, decided from its command line and its pod spec
// alone, by the same rules as the project's demo kubelet simulation (src/demo/kubelet/runtime.ts
// and probes.ts), so that one pod spec behaves alike on the demo cluster and on this kubelet:
//
//   - A shell's `-c` script is played statement by statement: `touch F` / `> F` create files,
//     `rm F` removes them, `sleep N` takes N seconds, `exit N` ends the script with N, and the end
//     of the script exits 0 (1 when the last statement was `false`). A loop (`while`, `until`,
//     `for`), `tail -f` and `sleep infinity` run forever.
//   - A program that is not a shell utility (a server) runs until it is killed, except in Job-like
//     pods (restartPolicy Never or OnFailure) and in init containers, where it does its work and
//     completes (exit 0) after shortRun - unless it serves ports, then it keeps running.
//   - `stress --vm-bytes N` over the container's memory limit is OOM-killed after shortRun:
//     exit code 137, reason OOMKilled.
//   - PID 1 ignores SIGTERM when it is a shell script without `trap` or a bare `sleep`: only the
//     grace period's SIGKILL stops it.
//
// Every function here is pure: the same spec always gives the same plan.

import (
	"math"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
)

// shortRun is how long a short-lived program runs before it exits.
const shortRun = time.Second

// utilities are commands that finish promptly; any other command may run indefinitely.
var utilities = map[string]bool{
	"echo": true, "printf": true, "touch": true, "rm": true, "sleep": true, "mkdir": true, "cat": true,
	"cp": true, "mv": true, "ls": true, "date": true, "true": true, "false": true, "exit": true,
	"set": true, "export": true, "cd": true, "test": true, "[": true, "chmod": true, "chown": true,
	"ln": true, "env": true, "hostname": true, "wget": true, "curl": true, "nslookup": true,
	"sync": true, "id": true,
}

var shells = regexp.MustCompile(`(^|/)(sh|bash|ash|dash|zsh)$`)

// exitPlan: the process exits by itself `after` its start, with this code and runtime reason.
type exitPlan struct {
	after  time.Duration
	code   int32
	reason string // "" means the code's usual reason (0: Completed, otherwise Error)
}

// span is one period during which a file exists, measured from the container's start; open
// spans last until the end.
type span struct {
	from, to time.Duration
	open     bool
}

// fileTimeline: when each file the script touches exists.
type fileTimeline map[string][]*span

func (f fileTimeline) create(name string, at time.Duration) {
	f[name] = append(f[name], &span{from: at, open: true})
}

func (f fileTimeline) remove(name string, at time.Duration) {
	for _, s := range f[name] {
		if s.open {
			s.open, s.to = false, at
			return
		}
	}
}

// exists reports whether the file exists at this container age.
func (f fileTimeline) exists(name string, age time.Duration) bool {
	for _, s := range f[name] {
		if s.from <= age && (s.open || age < s.to) {
			return true
		}
	}
	return false
}

// plan is everything the runtime needs to play one container instance.
type plan struct {
	exit           *exitPlan // nil: runs until killed
	files          fileTimeline
	ignoresSigterm bool
	ports          []int // TCP ports it accepts connections on while it runs
}

// containerRole is what the pod says about a container besides its own spec.
type containerRole struct {
	spec          *v1.Container // nil when the pod could not be found
	init          bool
	restartPolicy v1.RestartPolicy // the pod's
}

// planProcess decides what the container does. argv is what the runtime was asked to run
// (command then args, as the kubelet passed them); memLimit is its memory limit in bytes (0: none).
func planProcess(argv []string, image string, memLimit int64, role containerRole) plan {
	ports := listeningPorts(argv, image, role.spec)
	if oomKilled(argv, memLimit) {
		return plan{files: fileTimeline{}, ports: ports, exit: &exitPlan{after: shortRun, code: 137, reason: "OOMKilled"}}
	}
	p := planArgv(argv, role, role.spec != nil && len(role.spec.Ports) > 0)
	p.ports = ports
	first := ""
	if len(argv) > 0 {
		first = path.Base(argv[0])
	}
	isScript := len(argv) > 0 && shells.MatchString(argv[0]) && indexOf(argv, "-c") >= 0
	if (isScript && !strings.Contains(strings.Join(argv, " "), "trap")) || first == "sleep" {
		p.ignoresSigterm = true
	}
	return p
}

func planArgv(argv []string, role containerRole, declaresPorts bool) plan {
	files := fileTimeline{}
	sidecar := role.spec != nil && role.spec.RestartPolicy != nil && *role.spec.RestartPolicy == v1.ContainerRestartPolicyAlways
	jobLike := (role.init && !sidecar) || (role.restartPolicy != "" && role.restartPolicy != v1.RestartPolicyAlways)
	serves := indexOf(argv, "netexec") >= 0 || indexOf(argv, "serve-hostname") >= 0 || declaresPorts
	program := func() plan {
		if jobLike && !serves {
			return plan{files: files, exit: &exitPlan{after: shortRun}}
		}
		return plan{files: files}
	}
	stmts := statements(argv)
	if len(stmts) == 0 {
		return program()
	}
	var t time.Duration
	lastFailed := false
	for _, s := range stmts {
		cmd, args := path.Base(s[0]), s[1:]
		lastFailed = false
		if cmd == "while" || cmd == "until" || cmd == "for" || (cmd == "tail" && indexOf(args, "-f") >= 0) {
			return plan{files: files}
		}
		if !utilities[cmd] {
			return program()
		}
		switch cmd {
		case "sleep":
			d, ok := sleepArg(args)
			if !ok {
				return plan{files: files} // sleep infinity
			}
			t += d
		case "touch":
			for _, f := range args {
				if !strings.HasPrefix(f, "-") {
					files.create(f, t)
				}
			}
		case "rm":
			for _, f := range args {
				files.remove(f, t)
			}
		case "exit":
			code := 0
			if len(args) > 0 {
				code, _ = strconv.Atoi(args[0]) // `exit $?` and the like: 0
			}
			return plan{files: files, exit: &exitPlan{after: max(t, shortRun), code: int32(code)}}
		case "false":
			lastFailed = true
		}
		for i, w := range s {
			if (w == ">" || w == ">>") && i+1 < len(s) {
				files.create(s[i+1], t)
				break
			}
		}
	}
	code := int32(0)
	if lastFailed {
		code = 1
	}
	return plan{files: files, exit: &exitPlan{after: max(t, shortRun), code: code}}
}

// statements the container runs: a shell's `-c` script split into statements, or argv itself.
func statements(argv []string) [][]string {
	script, ok := shellScript(argv)
	if !ok {
		if len(argv) == 0 {
			return nil
		}
		return [][]string{argv}
	}
	return shellStatements(script)
}

// shellScript is the script of `sh -c SCRIPT` (or of `-c SCRIPT` given as args to a shell image).
func shellScript(argv []string) (string, bool) {
	c := indexOf(argv, "-c")
	if c >= 0 && c+1 < len(argv) && (shells.MatchString(argv[0]) || c == 0) {
		return argv[c+1], true
	}
	return "", false
}

// shellStatements splits a script into words, quote-aware; a statement ends at `;`, `&&`, `||`
// or a newline outside quotes.
func shellStatements(script string) [][]string {
	var out [][]string
	var words []string
	var word strings.Builder
	inWord := false
	var quote byte
	endWord := func() {
		if inWord {
			words = append(words, word.String())
		}
		word.Reset()
		inWord = false
	}
	endStatement := func() {
		endWord()
		if len(words) > 0 {
			out = append(out, words)
		}
		words = nil
	}
	for i := 0; i < len(script); i++ {
		ch := script[i]
		if quote != 0 {
			switch {
			case ch == quote:
				quote = 0
			case ch == '\\' && quote == '"' && i+1 < len(script) && strings.IndexByte(`"\$`+"`", script[i+1]) >= 0:
				i++
				word.WriteByte(script[i])
			default:
				word.WriteByte(ch)
			}
			continue
		}
		switch {
		case ch == '"' || ch == '\'':
			quote, inWord = ch, true
		case ch == '\\' && i+1 < len(script):
			i++
			word.WriteByte(script[i])
			inWord = true
		case ch == ';' || ch == '\n' || ((ch == '&' || ch == '|') && i+1 < len(script) && script[i+1] == ch):
			if ch == '&' || ch == '|' {
				i++
			}
			endStatement()
		case ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v':
			endWord()
		default:
			word.WriteByte(ch)
			inWord = true
		}
	}
	endStatement()
	return out
}

var sleepOperand = regexp.MustCompile(`^(\d+(?:\.\d+)?)([smhd]?)$`)

// sleepArg is sleep(1)'s duration (`30`, `1.5m`, `2h`); false for `infinity` or unparseable.
func sleepArg(args []string) (time.Duration, bool) {
	if len(args) == 0 {
		return 0, false
	}
	m := sleepOperand.FindStringSubmatch(args[0])
	if m == nil {
		return 0, false
	}
	n, _ := strconv.ParseFloat(m[1], 64)
	unit := map[string]float64{"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[m[2]]
	return time.Duration(n * unit * float64(time.Second)), true
}

var byteQuantity = regexp.MustCompile(`^(\d+(?:\.\d+)?)([KMGT]i?|[kmgt]|[BbEP]?)?$`)

// parseBytes reads a stress size ("250M" means MiB, as stress counts), or -1.
func parseBytes(q string) float64 {
	m := byteQuantity.FindStringSubmatch(strings.TrimSpace(q))
	if m == nil {
		return -1
	}
	n, _ := strconv.ParseFloat(m[1], 64)
	pow := 0.0
	if m[2] != "" {
		pow = map[byte]float64{'k': 1, 'K': 1, 'M': 2, 'G': 3, 'T': 4}[m[2][0]]
	}
	return n * math.Pow(1024, pow)
}

// oomKilled: `stress --vm-bytes N` (or stress-ng's) asks for more than the memory limit.
func oomKilled(argv []string, memLimit int64) bool {
	if memLimit <= 0 {
		return false
	}
	for i, a := range argv {
		v, ok := strings.CutPrefix(a, "--vm-bytes=")
		if !ok && a == "--vm-bytes" && i+1 < len(argv) {
			v, ok = argv[i+1], true
		}
		if ok && parseBytes(v) > float64(memLimit) {
			return true
		}
	}
	return false
}

var (
	portFlag     = regexp.MustCompile(`^--?(?:http-port|port)=(\d+)$`)
	portFlagName = regexp.MustCompile(`^--?(?:http-port|port)$`)
	digits       = regexp.MustCompile(`^\d+$`)
)

// wellKnownPorts: images that listen on their usual port without saying so.
var wellKnownPorts = []struct {
	image *regexp.Regexp
	port  int
}{
	{regexp.MustCompile(`(^|/)(nginx|httpd|caddy|traefik/whoami)(:|@|$)`), 80},
	{regexp.MustCompile(`(^|/)redis(:|@|$)`), 6379},
	{regexp.MustCompile(`(^|/)(postgres|postgresql)(:|@|$)`), 5432},
	{regexp.MustCompile(`(^|/)(mysql|mariadb)(:|@|$)`), 3306},
	{regexp.MustCompile(`(^|/)memcached(:|@|$)`), 11211},
	{regexp.MustCompile(`(^|/)mongo(:|@|$)`), 27017},
}

// listeningPorts: the declared TCP containerPorts, the port of an `--http-port=N` / `--port=N`
// argument, 8080 for agnhost netexec without one, and a few images' well-known ports. Sorted,
// without duplicates.
func listeningPorts(argv []string, image string, spec *v1.Container) []int {
	set := map[int]bool{}
	if spec != nil {
		for _, p := range spec.Ports {
			if p.ContainerPort > 0 && (p.Protocol == "" || p.Protocol == v1.ProtocolTCP) {
				set[int(p.ContainerPort)] = true
			}
		}
	}
	flagged := false
	for i, a := range argv {
		if m := portFlag.FindStringSubmatch(a); m != nil {
			n, _ := strconv.Atoi(m[1])
			set[n], flagged = true, true
		} else if portFlagName.MatchString(a) && i+1 < len(argv) && digits.MatchString(argv[i+1]) {
			n, _ := strconv.Atoi(argv[i+1])
			set[n], flagged = true, true
		}
	}
	if !flagged && indexOf(argv, "netexec") >= 0 {
		set[8080] = true
	}
	for _, w := range wellKnownPorts {
		if w.image.MatchString(image) {
			set[w.port] = true
		}
	}
	var out []int
	for p := 1; p <= 65535 && len(out) < len(set); p++ {
		if set[p] {
			out = append(out, p)
		}
	}
	return out
}

var exitN = regexp.MustCompile(`\bexit\s+([1-9]\d*)\b`)
var tokenSep = regexp.MustCompile(`[\s;&|()]+`)

// execVerdict is an exec command's result in a container of this age: exit code 0, or the
// failing code with the output a shell would print. `exit N` fails with N, `false` with 1; a
// check of a file (`cat F`, `ls F`, `stat F`, `test -e F`, `[ -f F ]`) fails while the
// container's script has not created it or has removed it; anything else succeeds.
func execVerdict(cmd []string, files fileTimeline, age time.Duration) (int32, string) {
	line := strings.Join(cmd, " ")
	if m := exitN.FindStringSubmatch(line); m != nil {
		n, _ := strconv.Atoi(m[1])
		return int32(n), ""
	}
	for _, t := range tokenSep.Split(line, -1) {
		if t == "false" || strings.HasSuffix(t, "/false") {
			return 1, ""
		}
	}
	for _, s := range statements(cmd) {
		name := path.Base(s[0])
		if name != "cat" && name != "ls" && name != "stat" && name != "test" && name != "[" {
			continue
		}
		for _, operand := range s[1:] {
			if strings.HasPrefix(operand, "-") || operand == "]" {
				continue
			}
			if files.exists(operand, age) {
				return 0, ""
			}
			if name == "cat" {
				return 1, "cat: can't open '" + operand + "': No such file or directory\n"
			}
			return 1, ""
		}
	}
	return 0, ""
}

// execDuration is how long an exec command runs: the sum of its `sleep`s; false when it sleeps
// forever.
func execDuration(cmd []string) (time.Duration, bool) {
	var total time.Duration
	for _, s := range statements(cmd) {
		if path.Base(s[0]) != "sleep" {
			continue
		}
		d, ok := sleepArg(s[1:])
		if !ok {
			return 0, false
		}
		total += d
	}
	return total, true
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}
