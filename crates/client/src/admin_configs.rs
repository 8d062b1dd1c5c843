//! The config, client-quota and SCRAM-credential calls of Kafka's `Admin`, as `kafka-configs`
//! makes them: `describeConfigs` with synonyms, `incrementalAlterConfigs`, `describeClientQuotas`,
//! `alterClientQuotas`, `describeUserScramCredentials` and `alterUserScramCredentials`.
//!
//! Routing as Kafka's admin client does: a broker's own resource (a BROKER or BROKER_LOGGER
//! config with a broker id) to that broker, everything else to any node (a KRaft broker
//! forwards what the controller decides).

use bytes::Bytes;
use strand_protocol::messages::alter_client_quotas_request::{
    EntityData as AlterEntity, EntryData as AlterEntry, OpData,
};
use strand_protocol::messages::alter_user_scram_credentials_request::{
    ScramCredentialDeletion, ScramCredentialUpsertion,
};
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::describe_client_quotas_request::ComponentData;
use strand_protocol::messages::describe_configs_request::DescribeConfigsResource;
use strand_protocol::messages::describe_user_scram_credentials_request::UserName;
use strand_protocol::messages::incremental_alter_configs_request::{AlterConfigsResource, AlterableConfig};
use strand_protocol::messages::{
    AlterClientQuotasRequest, AlterUserScramCredentialsRequest, DescribeClientQuotasRequest, DescribeConfigsRequest,
    DescribeUserScramCredentialsRequest, IncrementalAlterConfigsRequest,
};

use crate::admin::{ConfigEntry, RESOURCE_BROKER};
use crate::{Admin, ClientError};

/// Kafka's `ConfigResource.Type.BROKER_LOGGER`.
pub const RESOURCE_BROKER_LOGGER: i8 = 8;

/// One synonym of a described config: where a value comes from, most specific first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigSynonym {
    pub name: String,
    pub value: Option<String>,
    pub source: i8,
}

/// A config as `describeConfigs` with `includeSynonyms` returns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DescribedConfig {
    pub entry: ConfigEntry,
    pub synonyms: Vec<ConfigSynonym>,
}

/// Kafka's `AlterConfigOp.OpType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AlterOp {
    Set = 0,
    Delete = 1,
}

/// A client-quota entity: (entity type, name; `None` for the type's default), as Kafka's
/// `ClientQuotaEntity` holds it.
pub type QuotaEntity = Vec<(String, Option<String>)>;

/// How a `describeClientQuotas` filter component matches (Kafka's `ClientQuotaFilterComponent`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QuotaMatch {
    /// `ofEntity`: exactly this name.
    Exact(String),
    /// `ofDefaultEntity`: the type's default.
    Default,
    /// `ofEntityType`: any entity of the type.
    Any,
}

/// One user's SCRAM credentials: (mechanism id, iterations), or the error describing them gave.
pub type ScramDescription = Result<Vec<(i8, i32)>, ClientError>;

/// A SCRAM credential to set: the salted password is computed by the caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScramUpsertion {
    pub user: String,
    pub mechanism: i8,
    pub iterations: i32,
    pub salt: Vec<u8>,
    pub salted_password: Vec<u8>,
}

impl Admin {
    /// The configs of one resource with their synonyms (`describeConfigs` with
    /// `includeSynonyms`), in the order the node answered.
    pub async fn describe_config(&self, resource_type: i8, name: &str) -> Result<Vec<DescribedConfig>, ClientError> {
        let request = RequestBody::DescribeConfigs(DescribeConfigsRequest {
            resources: vec![DescribeConfigsResource {
                resource_type,
                resource_name: name.to_owned(),
                configuration_keys: None,
                ..Default::default()
            }],
            include_synonyms: true,
            ..Default::default()
        });
        let response = self.call_for(resource_type, name, "describeConfigs", &request).await?;
        let ResponseBody::DescribeConfigs(response) = response else { return Err(unexpected("DescribeConfigs")) };
        let mut described = Vec::new();
        for result in response.results {
            if let Some(error) = ClientError::from_response(result.error_code, result.error_message.as_deref()) {
                return Err(error);
            }
            described.extend(result.configs.into_iter().map(|c| {
                DescribedConfig {
                    entry: ConfigEntry {
                        name: c.name,
                        value: c.value,
                        source: c.config_source,
                        read_only: c.read_only,
                        sensitive: c.is_sensitive,
                    },
                    synonyms: c
                        .synonyms
                        .into_iter()
                        .map(|s| ConfigSynonym { name: s.name, value: s.value, source: s.source })
                        .collect(),
                }
            }));
        }
        Ok(described)
    }

    /// Sets and deletes configs of one resource (`incrementalAlterConfigs`).
    pub async fn incremental_alter_config(
        &self,
        resource_type: i8,
        name: &str,
        ops: &[(String, AlterOp, Option<String>)],
    ) -> Result<(), ClientError> {
        let request = RequestBody::IncrementalAlterConfigs(IncrementalAlterConfigsRequest {
            resources: vec![AlterConfigsResource {
                resource_type,
                resource_name: name.to_owned(),
                configs: ops
                    .iter()
                    .map(|(name, op, value)| AlterableConfig {
                        name: name.clone(),
                        config_operation: *op as i8,
                        value: value.clone(),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            }],
            validate_only: false,
            ..Default::default()
        });
        let response = self.call_for(resource_type, name, "incrementalAlterConfigs", &request).await?;
        let ResponseBody::IncrementalAlterConfigs(response) = response else {
            return Err(unexpected("IncrementalAlterConfigs"));
        };
        for result in response.responses {
            if let Some(error) = ClientError::from_response(result.error_code, result.error_message.as_deref()) {
                return Err(error);
            }
        }
        Ok(())
    }

    /// The quotas of the entities that match every component and hold no other entity type
    /// (`ClientQuotaFilter.containsOnly`), each entity's values by key.
    pub async fn describe_client_quotas(
        &self,
        components: &[(String, QuotaMatch)],
    ) -> Result<Vec<(QuotaEntity, Vec<(String, f64)>)>, ClientError> {
        let request = RequestBody::DescribeClientQuotas(DescribeClientQuotasRequest {
            components: components
                .iter()
                .map(|(entity_type, matching)| {
                    let (match_type, name) = match matching {
                        QuotaMatch::Exact(name) => (0, Some(name.clone())),
                        QuotaMatch::Default => (1, None),
                        QuotaMatch::Any => (2, None),
                    };
                    ComponentData { entity_type: entity_type.clone(), match_type, r#match: name, ..Default::default() }
                })
                .collect(),
            strict: true,
            ..Default::default()
        });
        let response = self.client().retrying("describeClientQuotas", || self.client().call_any(&request)).await?;
        let ResponseBody::DescribeClientQuotas(response) = response else {
            return Err(unexpected("DescribeClientQuotas"));
        };
        if let Some(error) = ClientError::from_response(response.error_code, response.error_message.as_deref()) {
            return Err(error);
        }
        Ok(response
            .entries
            .unwrap_or_default()
            .into_iter()
            .map(|entry| {
                let entity = entry.entity.into_iter().map(|e| (e.entity_type, e.entity_name)).collect();
                (entity, entry.values.into_iter().map(|v| (v.key, v.value)).collect())
            })
            .collect())
    }

    /// Sets (`Some`) and removes (`None`) quotas of one entity (`alterClientQuotas`).
    pub async fn alter_client_quotas(
        &self,
        entity: &QuotaEntity,
        ops: &[(String, Option<f64>)],
    ) -> Result<(), ClientError> {
        let request = RequestBody::AlterClientQuotas(AlterClientQuotasRequest {
            entries: vec![AlterEntry {
                entity: entity
                    .iter()
                    .map(|(entity_type, entity_name)| AlterEntity {
                        entity_type: entity_type.clone(),
                        entity_name: entity_name.clone(),
                        ..Default::default()
                    })
                    .collect(),
                ops: ops
                    .iter()
                    .map(|(key, value)| OpData {
                        key: key.clone(),
                        value: value.unwrap_or(0.0),
                        remove: value.is_none(),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            }],
            validate_only: false,
            ..Default::default()
        });
        let response = self.client().retrying("alterClientQuotas", || self.client().call_any(&request)).await?;
        let ResponseBody::AlterClientQuotas(response) = response else {
            return Err(unexpected("AlterClientQuotas"));
        };
        for entry in response.entries {
            if let Some(error) = ClientError::from_response(entry.error_code, entry.error_message.as_deref()) {
                return Err(error);
            }
        }
        Ok(())
    }

    /// The SCRAM credentials of `users` (every user with one when empty), user by user in the
    /// order the node answered.
    pub async fn describe_user_scram_credentials(
        &self,
        users: &[String],
    ) -> Result<Vec<(String, ScramDescription)>, ClientError> {
        let users = (!users.is_empty())
            .then(|| users.iter().map(|name| UserName { name: name.clone(), ..Default::default() }).collect());
        let request = RequestBody::DescribeUserScramCredentials(DescribeUserScramCredentialsRequest {
            users,
            ..Default::default()
        });
        let response =
            self.client().retrying("describeUserScramCredentials", || self.client().call_any(&request)).await?;
        let ResponseBody::DescribeUserScramCredentials(response) = response else {
            return Err(unexpected("DescribeUserScramCredentials"));
        };
        if let Some(error) = ClientError::from_response(response.error_code, response.error_message.as_deref()) {
            return Err(error);
        }
        Ok(response
            .results
            .into_iter()
            .map(|result| {
                let described = match ClientError::from_response(result.error_code, result.error_message.as_deref()) {
                    Some(error) => Err(error),
                    None => Ok(result.credential_infos.iter().map(|c| (c.mechanism, c.iterations)).collect()),
                };
                (result.user, described)
            })
            .collect())
    }

    /// Deletes and sets SCRAM credentials (`alterUserScramCredentials`); the first user's
    /// failure fails the call.
    pub async fn alter_user_scram_credentials(
        &self,
        deletions: &[(String, i8)],
        upsertions: &[ScramUpsertion],
    ) -> Result<(), ClientError> {
        let request = RequestBody::AlterUserScramCredentials(AlterUserScramCredentialsRequest {
            deletions: deletions
                .iter()
                .map(|(name, mechanism)| ScramCredentialDeletion {
                    name: name.clone(),
                    mechanism: *mechanism,
                    ..Default::default()
                })
                .collect(),
            upsertions: upsertions
                .iter()
                .map(|u| ScramCredentialUpsertion {
                    name: u.user.clone(),
                    mechanism: u.mechanism,
                    iterations: u.iterations,
                    salt: Bytes::from(u.salt.clone()),
                    salted_password: Bytes::from(u.salted_password.clone()),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        });
        let response = self.client().retrying("alterUserScramCredentials", || self.client().call_any(&request)).await?;
        let ResponseBody::AlterUserScramCredentials(response) = response else {
            return Err(unexpected("AlterUserScramCredentials"));
        };
        for result in response.results {
            if let Some(error) = ClientError::from_response(result.error_code, result.error_message.as_deref()) {
                return Err(error);
            }
        }
        Ok(())
    }

    /// Sends a config request where Kafka's admin client does: a broker's own resource to that
    /// broker, anything else to any node.
    async fn call_for(
        &self,
        resource_type: i8,
        name: &str,
        what: &str,
        request: &RequestBody,
    ) -> Result<ResponseBody, ClientError> {
        let broker = match resource_type {
            RESOURCE_BROKER | RESOURCE_BROKER_LOGGER => name.parse::<i32>().ok(),
            _ => None,
        };
        match broker {
            Some(id) => self.client().retrying(what, || self.client().call_node(id, request)).await,
            None => self.client().retrying(what, || self.client().call_any(request)).await,
        }
    }
}

fn unexpected(api: &str) -> ClientError {
    ClientError::Io { address: String::new(), reason: format!("not a {api} response") }
}
