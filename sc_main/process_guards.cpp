// What every simtlm process sets up before it parses its command line (docs/reliability.md, "Signals and
// closed streams"):
// - A closed stdin, stdout or stderr is opened on /dev/null. Otherwise the next file simtlm opens (the output
//   directory's lock) takes descriptor 2, and the progress line writes into it.
// - SIGPIPE is ignored: a reader that goes away (`simtlm run ... 2>&1 | head -1`) makes a write fail with
// EPIPE,
//   which the progress line ignores, instead of killing the run before its outputs are written.
// - SIGINT, SIGTERM and SIGHUP (unless ignored when simtlm starts) print one line naming the signal, then end
// the process with that signal as
//   before (the shell and a sweep see the same status). Output sets are swapped in by one rename, so each
//   output directory holds its complete previous or new set; the sweep installs handlers of its own.
#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <cstring>

#include "sc_main/commands.hpp"

namespace simtlm::cli {

namespace {

pid_t g_main_pid = 0;       // a forked timing child inherits the handler but stays quiet
bool g_stderr_tty = false;  // a progress line may be on the terminal: end it first

void write_all(const char* text) {
  size_t left = std::strlen(text);
  while (left > 0) {
    const ssize_t n = ::write(2, text, left);
    if (n <= 0) return;
    text += n;
    left -= static_cast<size_t>(n);
  }
}

extern "C" void on_process_signal(int sig) {
  if (getpid() == g_main_pid) {
    if (g_stderr_tty) write_all("\n");
    write_all(sig == SIGINT    ? "simtlm: stopped by SIGINT"
              : sig == SIGTERM ? "simtlm: stopped by SIGTERM"
                               : "simtlm: stopped by SIGHUP");
    write_all("; every output directory holds its complete previous or new set (docs/reliability.md)\n");
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

void install_process_guards() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (fcntl(fd, F_GETFD) != -1) continue;
    const int null = open("/dev/null", O_RDWR);
    if (null >= 0 && null != fd) {
      dup2(null, fd);
      close(null);
    }
  }
  signal(SIGPIPE, SIG_IGN);
  g_main_pid = getpid();
  g_stderr_tty = isatty(2) == 1;
  struct sigaction action {};
  action.sa_handler = on_process_signal;
  sigemptyset(&action.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    // A signal ignored at start stays ignored (nohup, a shell's background job without job control).
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    sigaction(sig, &action, nullptr);
  }
}

}  // namespace simtlm::cli
