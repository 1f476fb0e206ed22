#include "store/postgres/pg.h"

#include <arpa/inet.h>

#include <cstring>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"

namespace credledger::store {
namespace {

// Type oids of the pg_type catalog (stable across PostgreSQL versions).
constexpr Oid kBoolOid = 16;
constexpr Oid kByteaOid = 17;
constexpr Oid kInt8Oid = 20;
constexpr Oid kTextOid = 25;

absl::Mutex& ErrorsMutex() {
  static absl::Mutex* mu = new absl::Mutex();
  return *mu;
}

std::map<std::string, int64_t>& Errors() ABSL_EXCLUSIVE_LOCKS_REQUIRED(ErrorsMutex()) {
  static auto* errors = new std::map<std::string, int64_t>();
  return *errors;
}

void CountError(absl::string_view state) {
  absl::MutexLock lock(&ErrorsMutex());
  Errors()[state.size() >= 2 ? std::string(state.substr(0, 2)) : "connection"] += 1;
}

// The text PgError puts after the message, and SqlStateOf looks for.
constexpr absl::string_view kSqlStateTag = " [SQLSTATE ";

absl::StatusCode CodeOf(absl::string_view state) {
  if (state == kFencedSqlState || state == "42501" || state == "3D000" || state == "42P01") {
    return absl::StatusCode::kFailedPrecondition;
  }
  if (absl::StartsWith(state, "23") || state == "40001" || state == "40P01") {
    return absl::StatusCode::kAborted;
  }
  if (absl::StartsWith(state, "08") || absl::StartsWith(state, "53") || state == "57P01" ||
      state == "57P02" || state == "57P03" || state == "25006" || state == "25P03" ||
      state == "57014") {
    return absl::StatusCode::kUnavailable;
  }
  if (state == "XX001" || state == "XX002") return absl::StatusCode::kDataLoss;
  return absl::StatusCode::kInternal;
}

std::string EncodeInt8(int64_t value) {
  std::string bytes(8, '\0');
  const uint64_t u = static_cast<uint64_t>(value);
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((u >> (56 - 8 * i)) & 0xff);
  return bytes;
}

}  // namespace

absl::Status PgError(const PGresult* result, const PGconn* conn, absl::string_view context) {
  const char* state = result == nullptr ? nullptr : PQresultErrorField(result, PG_DIAG_SQLSTATE);
  const char* primary =
      result == nullptr ? nullptr : PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY);
  std::string message(context);
  absl::StrAppend(&message, ": ");
  if (primary != nullptr) {
    absl::StrAppend(&message, primary);
  } else if (result != nullptr && *PQresultErrorMessage(result) != '\0') {
    absl::StrAppend(&message, absl::StripAsciiWhitespace(PQresultErrorMessage(result)));
  } else if (conn != nullptr && *PQerrorMessage(conn) != '\0') {
    absl::StrAppend(&message, absl::StripAsciiWhitespace(PQerrorMessage(conn)));
  } else {
    absl::StrAppend(&message, "no answer from the server");
  }
  const bool lost = conn != nullptr && PQstatus(conn) != CONNECTION_OK;
  CountError(state == nullptr ? "" : state);
  if (state == nullptr || *state == '\0') {
    // No SQLSTATE: libpq's own failure, which is a lost or unusable connection.
    if (lost) absl::StrAppend(&message, " (connection lost)");
    return absl::UnavailableError(message);
  }
  absl::StrAppend(&message, kSqlStateTag, state, "]");
  return absl::Status(lost ? absl::StatusCode::kUnavailable : CodeOf(state), message);
}

bool SessionLost(const absl::Status& failure) {
  if (failure.ok()) return false;
  const std::string state = SqlStateOf(failure);
  return state.empty() || absl::StartsWith(state, "08") || state == "57P01" || state == "57P02" ||
         state == "57P03";
}

std::map<std::string, int64_t> PgErrorsByClass() {
  absl::MutexLock lock(&ErrorsMutex());
  return Errors();
}

std::string SqlStateOf(const absl::Status& status) {
  const absl::string_view message = status.message();
  const size_t at = message.rfind(kSqlStateTag);
  if (at == absl::string_view::npos) return "";
  const absl::string_view rest = message.substr(at + kSqlStateTag.size());
  return rest.size() >= 6 && rest[5] == ']' ? std::string(rest.substr(0, 5)) : "";
}

int64_t PgResult::affected_rows() const {
  if (result_ == nullptr) return 0;
  const char* tuples = PQcmdTuples(result_.get());
  return tuples == nullptr || *tuples == '\0' ? 0 : std::strtoll(tuples, nullptr, 10);
}

bool PgResult::IsNull(int row, int column) const {
  return PQgetisnull(result_.get(), row, column) != 0;
}

int64_t PgResult::Int(int row, int column) const {
  const absl::string_view bytes = Bytes(row, column);
  uint64_t value = 0;
  for (unsigned char c : bytes) value = (value << 8) | c;
  // Sign-extend int4 and int2 values.
  if (bytes.size() < 8 && !bytes.empty() && (static_cast<unsigned char>(bytes[0]) & 0x80)) {
    value |= ~uint64_t{0} << (8 * bytes.size());
  }
  return static_cast<int64_t>(value);
}

absl::string_view PgResult::Bytes(int row, int column) const {
  return absl::string_view(PQgetvalue(result_.get(), row, column),
                           PQgetlength(result_.get(), row, column));
}

PgParams& PgParams::Own(Oid type, std::string bytes) {
  types_.push_back(type);
  lengths_.push_back(static_cast<int>(bytes.size()));
  formats_.push_back(1);
  owned_.push_back(std::move(bytes));
  borrowed_.push_back(nullptr);
  return *this;
}

PgParams& PgParams::Borrow(Oid type, absl::string_view bytes) {
  types_.push_back(type);
  lengths_.push_back(static_cast<int>(bytes.size()));
  formats_.push_back(1);
  owned_.emplace_back();
  // A null value pointer would send SQL NULL: an empty value points at "".
  borrowed_.push_back(bytes.data() != nullptr ? bytes.data() : "");
  return *this;
}

PgParams& PgParams::Int(int64_t value) { return Own(kInt8Oid, EncodeInt8(value)); }
PgParams& PgParams::Bytes(absl::string_view value) { return Own(kByteaOid, std::string(value)); }
PgParams& PgParams::Text(absl::string_view value) { return Own(kTextOid, std::string(value)); }
PgParams& PgParams::Bool(bool value) { return Own(kBoolOid, std::string(1, value ? 1 : 0)); }
PgParams& PgParams::BytesRef(absl::string_view value) { return Borrow(kByteaOid, value); }
PgParams& PgParams::TextRef(absl::string_view value) { return Borrow(kTextOid, value); }

absl::InlinedVector<const char*, 16> PgParams::values() const {
  absl::InlinedVector<const char*, 16> values;
  for (size_t i = 0; i < owned_.size(); ++i) {
    values.push_back(borrowed_[i] != nullptr ? borrowed_[i] : owned_[i].data());
  }
  return values;
}

absl::StatusOr<std::unique_ptr<PgConnection>> PgConnection::Open(const std::string& conninfo,
                                                                 absl::Duration connect_timeout,
                                                                 const std::string& password) {
  char* parse_error = nullptr;
  PQconninfoOption* parsed = PQconninfoParse(conninfo.c_str(), &parse_error);
  if (parsed == nullptr) {
    std::string reason = parse_error == nullptr ? "out of memory" : parse_error;
    PQfreemem(parse_error);
    return absl::InvalidArgumentError(absl::StrCat(
        "postgres: the connection string does not parse: ", absl::StripAsciiWhitespace(reason)));
  }
  bool names_application = false;
  for (PQconninfoOption* o = parsed; o->keyword != nullptr; ++o) {
    if (std::strcmp(o->keyword, "application_name") == 0 && o->val != nullptr) {
      names_application = true;
    }
  }
  PQconninfoFree(parsed);
  const std::string timeout =
      absl::StrCat(std::max<int64_t>(1, absl::ToInt64Seconds(connect_timeout)));
  std::vector<const char*> keywords = {"dbname", "connect_timeout"};
  std::vector<const char*> values = {conninfo.c_str(), timeout.c_str()};
  if (!names_application) {
    keywords.push_back("application_name");
    values.push_back("credledger");
  }
  if (!password.empty()) {
    keywords.push_back("password");
    values.push_back(password.c_str());
  }
  keywords.push_back(nullptr);
  values.push_back(nullptr);
  // expand_dbname=1: `dbname` carries the whole string, the other pairs add to it.
  PGconn* conn = PQconnectdbParams(keywords.data(), values.data(), /*expand_dbname=*/1);
  if (conn == nullptr) return absl::ResourceExhaustedError("postgres: out of memory");
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string reason(absl::StripAsciiWhitespace(PQerrorMessage(conn)));
    PQfinish(conn);
    return absl::UnavailableError(absl::StrCat("postgres: cannot connect: ", reason));
  }
  // The server's notices ("relation already exists, skipping") are not errors; libpq would
  // print them on stderr.
  PQsetNoticeProcessor(
      conn, [](void*, const char*) {}, nullptr);
  return std::unique_ptr<PgConnection>(new PgConnection(conn));
}

PgConnection::~PgConnection() { PQfinish(conn_); }

bool PgConnection::ok() const { return PQstatus(conn_) == CONNECTION_OK; }

absl::Status CheckResult(const PgResult& result, const PgConnection& conn,
                         absl::string_view context) {
  const ExecStatusType status =
      result.raw() == nullptr ? PGRES_FATAL_ERROR : PQresultStatus(result.raw());
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_PIPELINE_SYNC) {
    return absl::OkStatus();
  }
  if (status == PGRES_PIPELINE_ABORTED) {
    return absl::AbortedError(
        absl::StrCat(context, ": not run, an earlier statement of the batch failed"));
  }
  return PgError(result.raw(), conn.raw(), context);
}

absl::Status PgConnection::Exec(absl::string_view sql, absl::string_view context) {
  PgResult result(PQexec(conn_, std::string(sql).c_str()));
  return CheckResult(result, *this, context);
}

absl::StatusOr<const PgStatement*> PgConnection::Prepare(absl::string_view sql) {
  auto it = prepared_.find(sql);
  if (it != prepared_.end()) return &it->second;
  PgStatement statement{absl::StrCat("credledger_", prepared_.size() + 1), std::string(sql)};
  PgResult result(PQprepare(conn_, statement.name.c_str(), statement.sql.c_str(), 0, nullptr));
  absl::Status status = CheckResult(result, *this, absl::StrCat("prepare \"", sql, "\""));
  if (!status.ok()) return status;
  return &prepared_.emplace(std::string(sql), std::move(statement)).first->second;
}

absl::StatusOr<PgResult> PgConnection::Run(const PgStatement& statement, const PgParams& params,
                                           absl::string_view context) {
  const absl::InlinedVector<const char*, 16> values = params.values();
  PgResult result(PQexecPrepared(conn_, statement.name.c_str(), params.size(), values.data(),
                                 params.lengths(), params.formats(), /*resultFormat=*/1));
  absl::Status status = CheckResult(result, *this, context);
  if (!status.ok()) return status;
  return result;
}

absl::StatusOr<PgResult> PgConnection::Query(absl::string_view sql, const PgParams& params,
                                             absl::string_view context) {
  absl::StatusOr<const PgStatement*> statement = Prepare(sql);
  if (!statement.ok()) return statement.status();
  return Run(**statement, params, context);
}

absl::StatusOr<PgResult> PgConnection::QueryOnce(absl::string_view sql, const PgParams& params,
                                                 absl::string_view context) {
  const absl::InlinedVector<const char*, 16> values = params.values();
  PgResult result(PQexecParams(conn_, std::string(sql).c_str(), params.size(), params.types(),
                               values.data(), params.lengths(), params.formats(),
                               /*resultFormat=*/1));
  absl::Status status = CheckResult(result, *this, context);
  if (!status.ok()) return status;
  return result;
}

absl::Status PgConnection::EnterPipeline() {
  if (PQenterPipelineMode(conn_) != 1) return PgError(nullptr, conn_, "postgres: pipeline");
  return absl::OkStatus();
}

absl::Status PgConnection::ExitPipeline() {
  if (PQexitPipelineMode(conn_) != 1) return PgError(nullptr, conn_, "postgres: end pipeline");
  return absl::OkStatus();
}

absl::Status PgConnection::Send(const PgStatement& statement, const PgParams& params) {
  const absl::InlinedVector<const char*, 16> values = params.values();
  if (PQsendQueryPrepared(conn_, statement.name.c_str(), params.size(), values.data(),
                          params.lengths(), params.formats(), /*resultFormat=*/1) != 1) {
    return PgError(nullptr, conn_, "postgres: send");
  }
  return absl::OkStatus();
}

absl::Status PgConnection::SendSql(absl::string_view sql) {
  // The extended protocol: the simple one (PQsendQuery) is not allowed in a pipeline.
  if (PQsendQueryParams(conn_, std::string(sql).c_str(), 0, nullptr, nullptr, nullptr, nullptr,
                        1) != 1) {
    return PgError(nullptr, conn_, "postgres: send");
  }
  return absl::OkStatus();
}

absl::Status PgConnection::Sync() {
  if (PQpipelineSync(conn_) != 1) return PgError(nullptr, conn_, "postgres: sync");
  return absl::OkStatus();
}

PgResult PgConnection::NextResult() {
  PGresult* result = PQgetResult(conn_);
  // A statement's results end with a null; the next call gives the next statement's.
  if (result == nullptr && PQpipelineStatus(conn_) != PQ_PIPELINE_OFF && ok()) {
    result = PQgetResult(conn_);
  }
  return PgResult(result);
}

}  // namespace credledger::store
