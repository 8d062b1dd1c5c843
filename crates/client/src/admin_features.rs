//! The feature calls of Kafka's `Admin` that `kafka-features` makes: `describeFeatures` (the
//! supported ranges and finalized levels a node reports in ApiVersions) and `updateFeatures`
//! (UpdateFeatures to the controller, each feature's own outcome).

use std::collections::BTreeMap;

use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::update_features_request::FeatureUpdateKey;
use strand_protocol::messages::{ApiVersionsRequest, UpdateFeaturesRequest};

use crate::{Admin, ClientError};

/// How long the controller may take to apply an update (Kafka's admin sends its request timeout).
const UPDATE_FEATURES_TIMEOUT_MS: i32 = 30_000;

/// What `describeFeatures` returns.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FeatureMetadata {
    /// Each feature the node supports: (min, max) levels, by name.
    pub supported: BTreeMap<String, (i16, i16)>,
    /// Each finalized feature's level, by name.
    pub finalized: BTreeMap<String, i16>,
    /// The finalized features' epoch (-1: none reported).
    pub epoch: i64,
}

/// Kafka's `FeatureUpdate.UpgradeType` (sent from UpdateFeatures v1; this client does not
/// speak v0, whose `allow_downgrade` it replaced).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpgradeType {
    Upgrade = 1,
    SafeDowngrade = 2,
    UnsafeDowngrade = 3,
}

impl Admin {
    /// The features a node supports and the cluster's finalized levels (`describeFeatures`).
    pub async fn describe_features(&self) -> Result<FeatureMetadata, ClientError> {
        let request = RequestBody::ApiVersions(ApiVersionsRequest {
            client_software_name: "strand".to_owned(),
            client_software_version: env!("CARGO_PKG_VERSION").to_owned(),
            ..Default::default()
        });
        let response = self
            .client()
            .retrying("describeFeatures", || async {
                // Features come from v3; v4 lists those whose minimum level is 0 too (KAFKA-17011).
                let connection = self.client().controller_connection().await?;
                connection.call(&request).await
            })
            .await?;
        let ResponseBody::ApiVersions(response) = response else {
            return Err(ClientError::Config("not an ApiVersions response".into()));
        };
        if let Some(error) = ClientError::from_response(response.error_code, None) {
            return Err(error);
        }
        Ok(FeatureMetadata {
            supported: response
                .supported_features
                .into_iter()
                .map(|f| (f.name, (f.min_version, f.max_version)))
                .collect(),
            finalized: response.finalized_features.into_iter().map(|f| (f.name, f.max_version_level)).collect(),
            epoch: response.finalized_features_epoch,
        })
    }

    /// Sets each feature of `updates` (name, level, kind) to its level, or only checks that it
    /// could with `validate_only`: each feature's outcome, by name.
    pub async fn update_features(
        &self,
        updates: &BTreeMap<String, (i16, UpgradeType)>,
        validate_only: bool,
    ) -> Result<BTreeMap<String, Result<(), ClientError>>, ClientError> {
        let request = RequestBody::UpdateFeatures(UpdateFeaturesRequest {
            timeout_ms: UPDATE_FEATURES_TIMEOUT_MS,
            feature_updates: updates
                .iter()
                .map(|(name, &(level, kind))| FeatureUpdateKey {
                    feature: name.clone(),
                    max_version_level: level,
                    upgrade_type: kind as i8,
                    ..Default::default()
                })
                .collect(),
            validate_only,
            ..Default::default()
        });
        let response = self.client().retrying("updateFeatures", || self.client().call_controller(&request)).await?;
        let ResponseBody::UpdateFeatures(response) = response else {
            return Err(ClientError::Config("not an UpdateFeatures response".into()));
        };
        // A request-wide error is every feature's.
        if let Some(error) = ClientError::from_response(response.error_code, response.error_message.as_deref()) {
            return Ok(updates.keys().map(|name| (name.clone(), Err(error.clone()))).collect());
        }
        let mut outcomes: BTreeMap<String, Result<(), ClientError>> = response
            .results
            .into_iter()
            .map(|r| {
                (r.feature, ClientError::from_response(r.error_code, r.error_message.as_deref()).map_or(Ok(()), Err))
            })
            .collect();
        // From v2 a response without an error lists no features: each succeeded.
        for name in updates.keys() {
            outcomes.entry(name.clone()).or_insert(Ok(()));
        }
        Ok(outcomes)
    }
}
