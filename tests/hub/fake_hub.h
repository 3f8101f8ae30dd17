// A fake Hugging Face Hub on 127.0.0.1 for the tests: it serves repositories
// made by the tests with the Hub's resolve URLs and headers (X-Repo-Commit,
// ETag, X-Linked-Etag, X-Linked-Size, X-Error-Code), LFS files by a redirect to
// a storage path that honours Range, and plain files (GLUE sources). Faults are
// injected per file. It counts every request, and stops with the object.
#pragma once

#include "loopback_listener.h"

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace runner::test {

class FakeHub {
 public:
  FakeHub();
  ~FakeHub();
  FakeHub(const FakeHub&) = delete;
  FakeHub& operator=(const FakeHub&) = delete;

  std::string url() const;  // http://127.0.0.1:PORT

  // A repository at one commit (its "main"); files ending in .safetensors or
  // .bin are LFS files, the rest are plain git files.
  void add_repo(const std::string& repo, const std::string& commit, const std::map<std::string, std::string>& files);
  void add_plain(const std::string& path, const std::string& content);  // served at url()/path

  // Faults, each for the requests that name `file` (its last path segment).
  void drop_after(const std::string& file, size_t bytes, int times);  // close the body early
  void corrupt(const std::string& file);                               // flip one byte of every body
  void fail_with(const std::string& file, int status, int times);      // answer `status` first
  void stall(const std::string& file, int ms);                         // wait before answering
  void require_token(const std::string& token);                        // else 401 on resolve URLs

  // Requests so far whose "METHOD path" contains `needle` ("" counts all).
  int count(const std::string& needle = "") const;
  // GET requests that sent bytes of `file` (a download of its body).
  int body_downloads(const std::string& file) const;
  std::vector<std::string> requests() const;

 private:
  struct Request;
  struct Answer;
  void handle(int fd);
  Answer route(const Request& request);
  Answer resolve(const Request& request, const std::string& repo, const std::string& rev, const std::string& file);
  void send(int fd, const Request& request, Answer answer);
  bool take_fault(std::map<std::string, int>& counts, const std::string& file);

  mutable std::mutex mutex_;
  struct Repo {
    std::string commit;
    std::map<std::string, std::string> files;
  };
  std::map<std::string, Repo> repos_;
  std::map<std::string, std::string> blobs_;  // sha256 -> content (the LFS storage)
  std::map<std::string, std::string> plain_;
  std::map<std::string, int> drop_times_, fail_times_;
  std::map<std::string, size_t> drop_bytes_;
  std::map<std::string, int> fail_status_, stall_ms_;
  std::map<std::string, bool> corrupt_;
  std::string token_;
  std::vector<std::string> log_;
  std::map<std::string, int> body_downloads_;
  LoopbackListener listener_;  // last: stopped (its handlers joined) before the rest goes
};

}  // namespace runner::test
