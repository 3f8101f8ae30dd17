#include "fake_hub.h"

#include "util/sha256.h"

#include <openssl/evp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace runner::test {

struct FakeHub::Request {
  std::string method, path;
  std::map<std::string, std::string> headers;  // lower-case names
};

struct FakeHub::Answer {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  bool ranged = false;   // honour Range
  std::string file;      // whose faults apply to the body
};

namespace {

// The git blob id of a file: what the Hub sends as the ETag of a non-LFS file.
std::string git_blob_sha1(const std::string& content) {
  std::string data = "blob " + std::to_string(content.size()) + '\0' + content;
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(data.data(), data.size(), out, &n, EVP_sha1(), nullptr);
  std::string hex;
  char b[3];
  for (unsigned i = 0; i < n; ++i) {
    std::snprintf(b, sizeof b, "%02x", out[i]);
    hex += b;
  }
  return hex;
}

bool is_lfs(const std::string& file) {
  auto ends = [&](const std::string& s) { return file.size() >= s.size() && file.compare(file.size() - s.size(), s.size(), s) == 0; };
  return ends(".safetensors") || ends(".bin");
}

std::string last_segment(const std::string& path) { return path.substr(path.rfind('/') + 1); }

const char* reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 206: return "Partial Content";
    case 302: return "Found";
    case 401: return "Unauthorized";
    case 404: return "Not Found";
    case 416: return "Range Not Satisfiable";
    default: return status >= 500 ? "Server Error" : "Other";
  }
}

void write_all(int fd, const std::string& bytes) {
  size_t sent = 0;
  while (sent < bytes.size()) {
    ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;  // the client went away
    sent += static_cast<size_t>(n);
  }
}

}  // namespace

FakeHub::FakeHub() : listener_([this](int fd) { handle(fd); }, "fake hub") {}

FakeHub::~FakeHub() = default;

std::string FakeHub::url() const { return "http://127.0.0.1:" + std::to_string(listener_.port()); }

void FakeHub::add_repo(const std::string& repo, const std::string& commit,
                       const std::map<std::string, std::string>& files) {
  std::lock_guard<std::mutex> g(mutex_);
  repos_[repo] = {commit, files};
  for (const auto& [name, content] : files)
    if (is_lfs(name)) blobs_[digest::sha256_hex(content)] = content;
}

void FakeHub::add_plain(const std::string& path, const std::string& content) {
  std::lock_guard<std::mutex> g(mutex_);
  plain_["/" + path] = content;
}

void FakeHub::drop_after(const std::string& file, size_t bytes, int times) {
  std::lock_guard<std::mutex> g(mutex_);
  drop_bytes_[file] = bytes;
  drop_times_[file] = times;
}
void FakeHub::corrupt(const std::string& file) { std::lock_guard<std::mutex> g(mutex_); corrupt_[file] = true; }
void FakeHub::fail_with(const std::string& file, int status, int times) {
  std::lock_guard<std::mutex> g(mutex_);
  fail_status_[file] = status;
  fail_times_[file] = times;
}
void FakeHub::stall(const std::string& file, int ms) { std::lock_guard<std::mutex> g(mutex_); stall_ms_[file] = ms; }
void FakeHub::require_token(const std::string& token) { std::lock_guard<std::mutex> g(mutex_); token_ = token; }

int FakeHub::count(const std::string& needle) const {
  std::lock_guard<std::mutex> g(mutex_);
  int n = 0;
  for (const auto& line : log_) n += line.find(needle) != std::string::npos;
  return n;
}

int FakeHub::body_downloads(const std::string& file) const {
  std::lock_guard<std::mutex> g(mutex_);
  auto it = body_downloads_.find(file);
  return it == body_downloads_.end() ? 0 : it->second;
}

std::vector<std::string> FakeHub::requests() const {
  std::lock_guard<std::mutex> g(mutex_);
  return log_;
}

bool FakeHub::take_fault(std::map<std::string, int>& counts, const std::string& file) {
  auto it = counts.find(file);
  if (it == counts.end() || it->second <= 0) return false;
  --it->second;
  return true;
}

void FakeHub::handle(int fd) {
  std::string raw;
  char buffer[4096];
  const auto head_complete = [&] { return raw.find("\r\n\r\n") != std::string::npos; };
  for (int waited = 0; !head_complete() && waited < 5000 && !listener_.stopping(); waited += 20) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 20) <= 0) continue;
    ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) return;
    raw.append(buffer, static_cast<size_t>(n));
  }
  std::istringstream in(raw);
  Request req;
  std::string line;
  std::getline(in, line);
  std::istringstream(line) >> req.method >> req.path;
  while (std::getline(in, line) && line != "\r") {
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string value = line.substr(colon + 1);
    while (!value.empty() && (value.back() == '\r' || value.back() == ' ')) value.pop_back();
    req.headers[name] = value.substr(value.find_first_not_of(' ') == std::string::npos ? 0 : value.find_first_not_of(' '));
  }
  Answer answer;
  {
    std::lock_guard<std::mutex> g(mutex_);
    std::string range = req.headers.count("range") ? " range=" + req.headers.at("range") : "";
    log_.push_back(req.method + " " + req.path + range);
    answer = route(req);
  }
  send(fd, req, std::move(answer));
}

FakeHub::Answer FakeHub::route(const Request& req) {
  const std::string file = last_segment(req.path);
  Answer a;
  a.file = file;
  if (take_fault(fail_times_, file)) {
    a.status = fail_status_[file];
    a.body = "injected failure";
    return a;
  }
  if (req.path.rfind("/cdn/", 0) == 0) {
    std::string sha = req.path.substr(5, 64);
    if (!blobs_.count(sha)) return Answer{404, {}, "no such blob", false, file};
    a.body = blobs_[sha];
    a.ranged = true;
    return a;
  }
  if (plain_.count(req.path)) {
    a.body = plain_[req.path];
    a.ranged = true;
    return a;
  }
  size_t at = req.path.find("/resolve/");
  if (at == std::string::npos) return Answer{404, {}, "not found", false, file};
  std::string rest = req.path.substr(at + 9);
  size_t slash = rest.find('/');
  return resolve(req, req.path.substr(1, at - 1), rest.substr(0, slash), rest.substr(slash + 1));
}

FakeHub::Answer FakeHub::resolve(const Request& req, const std::string& repo, const std::string& rev,
                                 const std::string& file) {
  Answer a;
  a.file = file;
  auto header = [&a](const std::string& n, const std::string& v) { a.headers.emplace_back(n, v); };
  if (!token_.empty() && req.headers.count("authorization") == 0) return Answer{401, {}, "Invalid credentials", false, file};
  if (!token_.empty() && req.headers.at("authorization") != "Bearer " + token_) return Answer{401, {}, "Invalid credentials", false, file};
  auto r = repos_.find(repo);
  if (r == repos_.end()) return Answer{404, {{"X-Error-Code", "RepoNotFound"}}, "Repository not found", false, file};
  if (rev != "main" && rev != r->second.commit)
    return Answer{404, {{"X-Error-Code", "RevisionNotFound"}}, "Invalid rev id", false, file};
  header("X-Repo-Commit", r->second.commit);
  auto f = r->second.files.find(file);
  if (f == r->second.files.end()) {
    a.status = 404;
    header("X-Error-Code", "EntryNotFound");
    a.body = "Entry not found";
    return a;
  }
  if (is_lfs(file)) {
    std::string sha = digest::sha256_hex(f->second);
    a.status = 302;
    header("Location", url() + "/cdn/" + sha + "/" + file);
    header("X-Linked-Etag", "\"" + sha + "\"");
    header("X-Linked-Size", std::to_string(f->second.size()));
    header("ETag", "\"" + git_blob_sha1("version https://git-lfs.github.com/spec/v1\noid sha256:" + sha) + "\"");
    return a;
  }
  header("ETag", "\"" + git_blob_sha1(f->second) + "\"");
  a.body = f->second;
  a.ranged = true;
  return a;
}

void FakeHub::send(int fd, const Request& req, Answer a) {
  int stall_ms;
  size_t drop = std::string::npos;
  {
    std::lock_guard<std::mutex> g(mutex_);
    stall_ms = stall_ms_.count(a.file) ? stall_ms_[a.file] : 0;
    if (corrupt_.count(a.file) && a.status == 200 && !a.body.empty()) a.body[a.body.size() / 2] ^= 0x5a;
    if (req.method == "GET" && a.status == 200 && take_fault(drop_times_, a.file)) drop = drop_bytes_[a.file];
  }
  for (int waited = 0; waited < stall_ms && !listener_.stopping(); waited += 10)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::string range = req.headers.count("range") ? req.headers.at("range") : "";
  size_t total = a.body.size();
  if (a.ranged && a.status == 200 && range.rfind("bytes=", 0) == 0) {
    size_t from = std::stoul(range.substr(6));
    if (from >= total) return write_all(fd, "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    a.status = 206;
    a.headers.emplace_back("Content-Range", "bytes " + std::to_string(from) + "-" + std::to_string(total - 1) + "/" + std::to_string(total));
    a.body = a.body.substr(from);
  }
  std::string head = "HTTP/1.1 " + std::to_string(a.status) + " " + reason(a.status) + "\r\n";
  for (const auto& [n, v] : a.headers) head += n + ": " + v + "\r\n";
  head += "Content-Length: " + std::to_string(a.body.size()) + "\r\nConnection: close\r\n\r\n";
  if (req.method == "HEAD") return write_all(fd, head);
  if ((a.status == 200 || a.status == 206) && !a.body.empty()) {
    std::lock_guard<std::mutex> g(mutex_);
    ++body_downloads_[a.file];
  }
  write_all(fd, head + (drop == std::string::npos ? a.body : a.body.substr(0, drop)));
  if (drop != std::string::npos) ::shutdown(fd, SHUT_RDWR);
}

}  // namespace runner::test
