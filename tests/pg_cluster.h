// A throwaway PostgreSQL cluster for tests and benchmarks: initdb in a
// temporary directory (as the postgres user when run as root), listening
// only on a socket there, removed at the end.
#pragma once

#include <libpq-fe.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace sluice {

class PgCluster {
 public:
  PGconn* conn() { return conn_; }
  ~PgCluster() { Stop(); }

  bool Start(std::string* error) {
    char tmpl[] = "/tmp/sluice_pg_XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) return Fail(error, "cannot create a temporary directory");
    dir_ = tmpl;
    ::chmod(dir_.c_str(), 0777);
    std::string bindir = "/usr/lib/postgresql/15/bin";
    if (FILE* p = ::popen("pg_config --bindir 2>/dev/null", "r")) {
      char buf[512];
      if (std::fgets(buf, sizeof buf, p)) {
        std::string s(buf);
        while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
        if (std::filesystem::exists(s + "/initdb")) bindir = s;
      }
      ::pclose(p);
    }
    // PostgreSQL refuses to run as root.
    as_ = ::geteuid() == 0 ? "runuser -u postgres -- " : "";
    pg_ctl_ = bindir + "/pg_ctl";
    std::string initdb = as_ + bindir + "/initdb -D " + dir_ +
                         "/data -A trust -U postgres --no-sync -E UTF8 --locale=C > " + dir_ +
                         "/initdb.log 2>&1";
    if (std::system(initdb.c_str()) != 0)
      return Fail(error, "initdb failed; see " + dir_ + "/initdb.log");
    std::string start = as_ + pg_ctl_ + " -D " + dir_ + "/data -w -l " + dir_ + "/pg.log -o \"-k " +
                        dir_ + " -c listen_addresses='' -F\" start > /dev/null 2>&1";
    if (std::system(start.c_str()) != 0)
      return Fail(error, "PostgreSQL did not start; see " + dir_ + "/pg.log");
    started_ = true;
    conn_ = PQconnectdb(("host=" + dir_ + " dbname=postgres user=postgres").c_str());
    if (PQstatus(conn_) != CONNECTION_OK)
      return Fail(error, std::string("cannot connect: ") + PQerrorMessage(conn_));
    return true;
  }

  void Stop() {
    if (conn_) PQfinish(conn_);
    conn_ = nullptr;
    if (started_) {
      std::string stop = as_ + pg_ctl_ + " -D " + dir_ + "/data -m immediate stop > /dev/null 2>&1";
      (void)std::system(stop.c_str());
      started_ = false;
    }
    if (!dir_.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(dir_, ec);
      dir_.clear();
    }
  }

  // Runs `sql`; on success fills `rows` (text values, "NULL" for NULL).
  bool Exec(const std::string& sql, std::vector<std::vector<std::string>>* rows,
            std::string* error) {
    PGresult* r = PQexec(conn_, sql.c_str());
    ExecStatusType st = PQresultStatus(r);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
      *error = PQresultErrorMessage(r);
      PQclear(r);
      return false;
    }
    if (rows) {
      rows->clear();
      for (int i = 0; i < PQntuples(r); ++i) {
        std::vector<std::string> row;
        for (int j = 0; j < PQnfields(r); ++j) {
          row.push_back(PQgetisnull(r, i, j) ? "NULL" : PQgetvalue(r, i, j));
        }
        rows->push_back(std::move(row));
      }
    }
    PQclear(r);
    return true;
  }

 private:
  bool Fail(std::string* error, const std::string& what) {
    *error = what;
    return false;
  }
  std::string dir_, as_, pg_ctl_;
  bool started_ = false;
  PGconn* conn_ = nullptr;
};

}  // namespace sluice
