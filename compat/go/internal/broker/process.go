package broker

import (
	"os"
	"os/exec"
	"syscall"
)

// startLogged starts command with its standard output and error going to the two files (written
// over with truncate, appended to otherwise), and with the kernel killing it if the test binary
// dies without stopping it (a panic, `go test -timeout`). The channel yields Wait's error once
// the process has exited and the files are closed.
func startLogged(command []string, stdoutPath, stderrPath string, truncate bool) (*exec.Cmd, <-chan error, error) {
	flag := os.O_CREATE | os.O_WRONLY | os.O_APPEND
	if truncate {
		flag = os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	}
	stdout, err := os.OpenFile(stdoutPath, flag, 0o644)
	if err != nil {
		return nil, nil, err
	}
	stderr, err := os.OpenFile(stderrPath, flag, 0o644)
	if err != nil {
		stdout.Close()
		return nil, nil, err
	}
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		stdout.Close()
		stderr.Close()
		return nil, nil, err
	}
	done := make(chan error, 1)
	go func() {
		err := cmd.Wait()
		stdout.Close()
		stderr.Close()
		done <- err
	}()
	return cmd, done, nil
}
