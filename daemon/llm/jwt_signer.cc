#include "llm/jwt_signer.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <array>
#include <memory>

#include "os/base64.h"

namespace mace::llm {

namespace {

std::string openssl_error(std::string_view what) {
  std::string out(what);
  unsigned long code = ERR_get_error();
  if (code != 0) {
    std::array<char, 256> buf{};
    ERR_error_string_n(code, buf.data(), buf.size());
    out += ": ";
    out += buf.data();
  }
  ERR_clear_error();
  return out;
}

}  // namespace

std::string base64url_encode(std::string_view data) { return os::base64url_encode(data); }

std::optional<std::string> base64url_decode(std::string_view text) { return os::base64_decode(text); }

std::string sign_rs256(std::string_view pem_private_key, std::string_view data) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(pem_private_key.data(), static_cast<int>(pem_private_key.size())),
      BIO_free);
  if (!bio) throw SetupError(openssl_error("cannot read the private key"));
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr), EVP_PKEY_free);
  if (!key) throw SetupError(openssl_error("the private key is not a PEM private key"));
  if (EVP_PKEY_base_id(key.get()) != EVP_PKEY_RSA)
    throw SetupError("the private key is not an RSA key (RS256 needs one)");
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  size_t length = 0;
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &length,
                     reinterpret_cast<const unsigned char*>(data.data()), data.size()) != 1) {
    throw SetupError(openssl_error("RS256 signing failed"));
  }
  std::string signature(length, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(signature.data()), &length,
                     reinterpret_cast<const unsigned char*>(data.data()), data.size()) != 1) {
    throw SetupError(openssl_error("RS256 signing failed"));
  }
  signature.resize(length);
  return signature;
}

}  // namespace mace::llm
