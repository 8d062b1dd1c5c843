//! The gateway's route table under `/v3`, and the [`Ctx`] every handler starts from.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;

use axum::Router;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};

use super::{Ctx, Gateway, RestError, clusters, configs, groups, produce, topics};

/// The peer of an HTTP connection, set on each of its requests.
#[derive(Debug, Clone, Copy)]
pub struct Peer(pub SocketAddr);

impl FromRequestParts<Arc<Gateway>> for Ctx {
    type Rejection = RestError;

    async fn from_request_parts(parts: &mut Parts, gateway: &Arc<Gateway>) -> Result<Ctx, RestError> {
        let peer = parts.extensions.get::<Peer>().map_or(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)), |p| p.0);
        gateway.ctx(&parts.headers, peer, parts.extensions.get::<crate::Secure>().is_some_and(|s| s.0)).await
    }
}

/// Every v3 route, with Confluent's 404 and 405 answers for the rest of `/v3`.
pub(crate) fn router(gateway: Arc<Gateway>) -> Router {
    const C: &str = "/v3/clusters/{cluster_id}";
    let routes = [
        ("/v3/clusters", get(clusters::list_clusters)),
        (C, get(clusters::get_cluster)),
        ("{C}/brokers", get(clusters::list_brokers)),
        ("{C}/brokers/{broker_id}", get(clusters::get_broker)),
        ("{C}/broker-configs", get(configs::list_cluster_configs)),
        ("{C}/broker-configs:alter", post(configs::alter_cluster_configs)),
        (
            "{C}/broker-configs/{name}",
            get(configs::get_cluster_config).put(configs::update_cluster_config).delete(configs::reset_cluster_config),
        ),
        ("{C}/brokers/{broker_id}/configs", get(clusters::list_broker_configs)),
        ("{C}/brokers/{broker_id}/configs:alter", post(configs::alter_broker_configs)),
        (
            "{C}/brokers/{broker_id}/configs/{name}",
            get(clusters::get_broker_config).put(configs::update_broker_config).delete(configs::reset_broker_config),
        ),
        ("{C}/brokers/{broker_id}/partition-replicas", get(topics::list_broker_replicas)),
        ("{C}/topics", get(topics::list_topics).post(topics::create_topic)),
        (
            "{C}/topics/{topic_name}",
            get(topics::get_topic).patch(topics::update_partition_count).delete(topics::delete_topic),
        ),
        ("{C}/topics/{topic_name}/configs", get(configs::list_topic_configs)),
        ("{C}/topics/{topic_name}/configs:alter", post(configs::alter_topic_configs)),
        (
            "{C}/topics/{topic_name}/configs/{name}",
            get(configs::get_topic_config).put(configs::update_topic_config).delete(configs::reset_topic_config),
        ),
        ("{C}/topics/{topic_name}/partitions", get(topics::list_partitions)),
        ("{C}/topics/{topic_name}/partitions/{partition_id}", get(topics::get_partition)),
        ("{C}/topics/{topic_name}/partitions/{partition_id}/replicas", get(topics::list_replicas)),
        ("{C}/topics/{topic_name}/partitions/{partition_id}/replicas/{broker_id}", get(topics::get_replica)),
        ("{C}/topics/{topic_name}/records", post(produce::produce)),
        ("{C}/consumer-groups", get(groups::list_groups)),
        ("{C}/consumer-groups/{consumer_group_id}", get(groups::get_group)),
        ("{C}/consumer-groups/{consumer_group_id}/consumers", get(groups::list_consumers)),
        ("{C}/consumer-groups/{consumer_group_id}/consumers/{consumer_id}", get(groups::get_consumer)),
        ("{C}/consumer-groups/{consumer_group_id}/consumers/{consumer_id}/assignments", get(groups::list_assignments)),
        ("{C}/consumer-groups/{consumer_group_id}/lag-summary", get(groups::lag_summary)),
        ("{C}/consumer-groups/{consumer_group_id}/lags", get(groups::list_lags)),
        ("{C}/consumer-groups/{consumer_group_id}/lags/{topic_name}/partitions/{partition_id}", get(groups::get_lag)),
    ];
    let mut router = Router::new();
    for (path, route) in routes {
        let path = path.replace("{C}", C);
        router = router.route(&path, route.fallback(method_not_allowed));
    }
    router.route("/v3", get(not_found)).route("/v3/{*rest}", axum::routing::any(not_found)).with_state(gateway)
}

/// A `/v3` path the gateway does not serve.
async fn not_found() -> Response {
    RestError::not_found("HTTP 404 Not Found").into_response()
}

/// A served path with a method it does not take.
async fn method_not_allowed(method: Method) -> Response {
    let message = format!("HTTP 405 Method Not Allowed ({method})");
    RestError::new(StatusCode::METHOD_NOT_ALLOWED, 405, message).into_response()
}
