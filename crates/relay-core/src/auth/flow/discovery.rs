//! Discovery: protected-resource metadata, then authorization-server metadata (with the
//! 2025-03-26 fallbacks and migration to a new authorization server), then the client identity.

use super::*;

impl Authorizer {
    pub(super) fn server_url(&self) -> Option<HttpUrl> {
        HttpUrl::parse(&self.cfg.server_url).ok()
    }

    pub(super) fn discover_resource(&mut self) {
        let Some(server) = self.server_url() else {
            return;
        };
        let mut urls = Vec::new();
        if let Some(url) = &self.challenge.resource_metadata {
            if let Err(error) = resource_metadata_url(url, &server) {
                self.fail(error);
                return;
            }
            urls.push(url.clone());
        }
        for url in resource_metadata_urls(&server) {
            if !urls.contains(&url) {
                urls.push(url);
            }
        }
        self.next_resource_url(urls, 0);
    }

    pub(super) fn next_resource_url(&mut self, urls: Vec<String>, next: usize) {
        let Some(url) = urls.get(next).cloned() else {
            // No protected-resource metadata: a 2025-03-26 server, whose own origin is the
            // authorization server.
            let Some(server) = self.server_url() else {
                return;
            };
            self.state.resource = Some(canonical_resource(&server));
            self.state.resource_metadata = None;
            self.discover_server(server.origin(), true);
            return;
        };
        if let Err(error) = endpoint_url(&url) {
            self.fail(error);
            return;
        }
        let exchange = self.fetch(HttpMethod::Get, url, vec![accept_json()], None);
        self.step = Step::Resource {
            urls,
            next: next + 1,
            exchange,
        };
    }

    /// Protected-resource metadata arrived from `fetched_from`.
    pub(super) fn resource_found(&mut self, metadata: ResourceMetadata, fetched_from: &str) {
        let Some(server) = self.server_url() else {
            return;
        };
        let resource = match &metadata.resource {
            Some(resource) if !resource_covers(resource, &server, fetched_from) => {
                self.fail(AuthError::ResourceMismatch {
                    expected: canonical_resource(&server),
                    found: resource.clone(),
                });
                return;
            }
            Some(resource) => resource.clone(),
            None => canonical_resource(&server),
        };
        let Some(issuer) = metadata.authorization_servers.first().cloned() else {
            self.fail(AuthError::Discovery {
                resource: resource.clone(),
                message: "its metadata lists no authorization server".to_owned(),
            });
            return;
        };
        self.state.resource = Some(resource);
        self.state.resource_metadata = Some(metadata);
        self.discover_server(issuer, false);
    }

    pub(super) fn discover_server(&mut self, issuer: String, legacy: bool) {
        let known = self
            .state
            .server_metadata
            .as_ref()
            .map(|m| m.issuer.clone());
        match known {
            // Known and still the one the resource names: no need to ask again.
            Some(known) if same_issuer(&known, &issuer) => {
                self.choose_client();
                return;
            }
            // Migration: the resource now names another authorization server; what the old
            // one issued is no good there.
            Some(_) => self.forget_server(),
            None => {}
        }
        let parsed = match endpoint_url(&issuer) {
            Ok(parsed) => parsed,
            Err(error) => {
                self.fail(error);
                return;
            }
        };
        self.next_server_url(server_metadata_urls(&parsed), 0, issuer, legacy);
    }

    pub(super) fn forget_server(&mut self) {
        self.state.server_metadata = None;
        self.state.tokens = None;
        if self
            .state
            .client
            .as_ref()
            .is_some_and(|c| c.issuer.is_some())
        {
            self.state.client = None;
        }
    }

    pub(super) fn next_server_url(
        &mut self,
        urls: Vec<String>,
        next: usize,
        issuer: String,
        legacy: bool,
    ) {
        let Some(url) = urls.get(next).cloned() else {
            if legacy {
                // 2025-03-26: no metadata, default endpoints at the server's origin.
                self.state.server_metadata = Some(ServerMetadata::fallback(&issuer));
                self.choose_client();
            } else {
                self.fail(AuthError::Discovery {
                    resource: issuer,
                    message: "no authorization server metadata at its well-known URLs".to_owned(),
                });
            }
            return;
        };
        let exchange = self.fetch(HttpMethod::Get, url, vec![accept_json()], None);
        self.step = Step::Server {
            urls,
            next: next + 1,
            exchange,
            issuer,
            legacy,
        };
    }

    pub(super) fn server_found(&mut self, metadata: ServerMetadata, issuer: &str, legacy: bool) {
        // RFC 8414 §3.3. A 2025-03-26 server's metadata was found by its MCP origin, not by an
        // issuer identifier, so there is nothing to compare with.
        if !legacy && !same_issuer(&metadata.issuer, issuer) {
            self.fail(AuthError::IssuerMismatch {
                expected: issuer.to_owned(),
                found: metadata.issuer,
            });
            return;
        }
        let Some(server) = self.server_url() else {
            return;
        };
        // The declared authorization server: the issuer the resource named (a 2025-03-26
        // server's own origin).
        for url in [&metadata.authorization_endpoint, &metadata.token_endpoint]
            .into_iter()
            .chain(metadata.registration_endpoint.as_ref())
            .chain(metadata.revocation_endpoint.as_ref())
        {
            if let Err(error) = sign_in_endpoint(url, issuer, &server) {
                self.fail(error);
                return;
            }
        }
        self.state.server_metadata = Some(metadata);
        self.choose_client();
    }

    pub(super) fn choose_client(&mut self) {
        let Some(server) = self.state.server_metadata.clone() else {
            return;
        };
        let usable = self.state.client.as_ref().is_some_and(|c| {
            c.issuer
                .as_deref()
                .is_none_or(|issuer| same_issuer(issuer, &server.issuer))
        });
        if usable {
            self.authorize();
            return;
        }
        if let Some(client) = self.cfg.client.clone() {
            self.state.client = Some(client);
        } else if let (true, Some(url)) = (
            server.client_id_metadata_document_supported,
            self.cfg.client_metadata_url.clone(),
        ) {
            self.state.client = Some(ClientIdentity {
                client_id: url,
                client_secret: None,
                token_endpoint_auth_method: Some("none".to_owned()),
                issuer: Some(server.issuer.clone()),
                assertion_alg: None,
            });
        } else if let Some(url) = server.registration_endpoint.clone() {
            let scope = self.choose_scope(&server);
            let body = registration_request(
                &self.cfg.client_name,
                &self.cfg.redirect_uri,
                scope.as_deref(),
                &server,
            );
            let headers = vec![
                ("Content-Type".to_owned(), "application/json".to_owned()),
                accept_json(),
            ];
            let exchange = self.fetch(HttpMethod::Post, url.clone(), headers, Some(body));
            self.step = Step::Register { exchange, url };
            return;
        } else {
            self.fail(AuthError::NoClientIdentity {
                issuer: server.issuer.clone(),
            });
            return;
        }
        self.authorize();
    }
}
