"""The client's TLS context: made once per process for each CA setting httpx reads, and shared
by every client (httpx loads the CA bundle for each client otherwise)."""

from __future__ import annotations

import ssl
from pathlib import Path

import certifi

from drums_gym.client._request import client_options, tls_context


def test_clients_share_one_tls_context(monkeypatch):
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    first = client_options("https://drums.example", None, 4)["verify"]
    assert isinstance(first, ssl.SSLContext) and first.verify_mode == ssl.CERT_REQUIRED
    assert first.check_hostname
    assert client_options("http://127.0.0.1:1", "t", 8)["verify"] is first


def test_the_ca_setting_of_the_environment_is_honoured(monkeypatch, tmp_path):
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    default = tls_context()
    bundle = tmp_path / "ca.pem"
    bundle.write_text(Path(certifi.where()).read_text().split("-----END CERTIFICATE-----")[0]
                      + "-----END CERTIFICATE-----\n")
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    own = tls_context()
    assert own is not default and own is tls_context()
    assert len(own.get_ca_certs()) == 1 < len(default.get_ca_certs())
