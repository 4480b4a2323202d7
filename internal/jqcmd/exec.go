package jqcmd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// FindJQ returns the path of jq on the PATH and its version, or "" when it
// is missing.
func FindJQ() (path, version string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "jq", "--version") // its Path looked up on the PATH
	out, err := cmd.Output()
	if err != nil {
		return "", ""
	}
	return cmd.Path, strings.TrimSpace(string(out))
}

// Run runs the command with no shell, with the jq at path jq or, when jq
// is "", in process: jq gets the words of its stage and, on its standard
// input, what the pipeline would feed it. data is the content of the file
// named file, which may have been fetched from elsewhere; a command that
// reads another file reads it from disk, only a regular file of at most max
// bytes, opened without blocking, so that a hostile command cannot make
// the caller wait on a FIFO or a terminal, or read a device without end.
// What jq prints is bounded by max bytes; jq writing to its standard error
// is an error.
func (c *Command) Run(ctx context.Context, jq, file string, data []byte, max int) ([]byte, error) {
	input := data
	var err error
	if c.File != file {
		if input, err = readRegular(c.File, max); err != nil {
			return nil, err
		}
	}
	if c.SkipHeader {
		_, input, _ = bytes.Cut(input, []byte("\n"))
	}
	if jq == "" {
		inputs, err := Inputs(input)
		if err != nil {
			return nil, err
		}
		return c.JQ.Run(ctx, inputs, max)
	}
	cmd := exec.CommandContext(ctx, jq, c.JQ.Args...)
	stdout, stderr := &limitedBuffer{max: max}, &limitedBuffer{max: 4096}
	cmd.Stdin = bytes.NewReader(input)
	cmd.Stdout, cmd.Stderr, cmd.WaitDelay = stdout, stderr, time.Second
	err = cmd.Run()
	msg := strings.TrimSpace(stderr.buf.String())
	switch {
	case ctx.Err() != nil:
		err = fmt.Errorf("did not finish: %w", ctx.Err())
	case err != nil && msg != "":
		err = fmt.Errorf("%v: %s", err, msg)
	case err != nil:
	case msg != "":
		err = fmt.Errorf("wrote to standard error: %s", msg)
	case stdout.truncated:
		err = fmt.Errorf("printed more than %d bytes", max)
	}
	return stdout.buf.Bytes(), err
}

// readRegular reads a regular file of at most max bytes, opened without
// blocking.
func readRegular(path string, max int) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return nil, err
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file (%s)", path, fi.Mode().Type())
	case fi.Size() > int64(max):
		return nil, fmt.Errorf("%s holds %d bytes, more than the kit reads (%d)", path, fi.Size(), max)
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err == nil && len(data) > max {
		err = fmt.Errorf("%s grew past the %d bytes the kit reads", path, max)
	}
	return data, err
}

// limitedBuffer keeps the first max bytes written to it. Its buffer is not
// embedded: io.Copy, which os/exec uses, would call the buffer's ReadFrom
// and read past max.
type limitedBuffer struct {
	buf       bytes.Buffer
	max       int
	truncated bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); room < len(p) {
		b.truncated = true
		b.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return b.buf.Write(p)
}
