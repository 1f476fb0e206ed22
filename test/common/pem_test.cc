// PEM certificate and key pair checks (common/pem.h), on material generated per test run.
#include "common/pem.h"

#include <openssl/err.h>

#include "gtest/gtest.h"
#include "test/kubeapi/tls_material.h"
#include "test/support/status_matchers.h"

namespace credledger::common {
namespace pem_test {

class PemTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(material_, kubeapi::GenerateTlsMaterial({"localhost"}, {}));
    ASSERT_OK_AND_ASSIGN(client_, kubeapi::IssueClientCertificate(material_.client_ca_cert.get(),
                                                                  material_.client_ca_key.get(),
                                                                  "alice", {}));
  }
  kubeapi::TlsMaterial material_;
  kubeapi::ClientCertificate client_;
};

TEST_F(PemTest, FindsACertificate) {
  EXPECT_TRUE(HoldsPemCertificate(material_.ca_cert_pem));
  EXPECT_TRUE(HoldsPemCertificate("# bundle\n" + material_.ca_cert_pem + client_.certificate_pem));
  EXPECT_FALSE(HoldsPemCertificate(material_.server_key_pem));
  EXPECT_FALSE(HoldsPemCertificate(""));
  EXPECT_EQ(ERR_peek_error(), 0u);
}

TEST_F(PemTest, TellsWhatIsWrongWithAPair) {
  EXPECT_EQ(CheckPemKeyPair(material_.server_cert_pem, material_.server_key_pem),
            PemPairProblem::kNone);
  EXPECT_EQ(CheckPemKeyPair(client_.certificate_pem, client_.key_pem), PemPairProblem::kNone);
  EXPECT_EQ(CheckPemKeyPair(material_.server_cert_pem, client_.key_pem),
            PemPairProblem::kMismatch);
  EXPECT_EQ(CheckPemKeyPair(material_.server_key_pem, material_.server_key_pem),
            PemPairProblem::kNoCertificate);
  EXPECT_EQ(CheckPemKeyPair(material_.server_cert_pem, material_.server_cert_pem),
            PemPairProblem::kNoKey);
  EXPECT_EQ(ERR_peek_error(), 0u);
}

}  // namespace pem_test
}  // namespace credledger::common
