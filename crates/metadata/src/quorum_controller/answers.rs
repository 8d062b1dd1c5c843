//! How the controller's answers are put together from a decision's parts: the rounds of a
//! screened request merged, a decision refused whole, a decision that did not commit.

use strand_protocol::messages::api::ResponseBody;

use crate::controller::screening;

/// The answers of a screened request's rounds, outermost first, with the last round's folded in.
pub(super) fn merged(answered: Vec<ResponseBody>, last: ResponseBody) -> ResponseBody {
    answered.into_iter().rev().fold(last, |inner, outer| screening::merge(outer, inner))
}

/// A decision refused whole for writing more than a batch may hold, as Kafka's controller
/// refuses an operation past its bounded record list.
pub(super) fn too_large(mut response: ResponseBody) -> ResponseBody {
    let message = "Unable to perform excessively large batch operation.";
    screening::fail_all(&mut response, strand_protocol::error::ErrorCode::PolicyViolation, message);
    response
}

/// A decision whose records could not be committed: every entry that succeeded becomes
/// REQUEST_TIMED_OUT with `reason`, the others keep their own errors (as Kafka's controller
/// answers an operation that timed out). Responses of other APIs are left as they are.
pub(super) fn fail_successes(response: &mut ResponseBody, reason: &str) {
    let timed_out = strand_protocol::error::ErrorCode::RequestTimedOut.code();
    let fail = |code: &mut i16, message: &mut Option<String>| {
        if *code == 0 {
            *code = timed_out;
            *message = Some(reason.to_owned());
        }
    };
    match response {
        ResponseBody::CreateTopics(r) => {
            r.topics.iter_mut().for_each(|t| fail(&mut t.error_code, &mut t.error_message))
        }
        ResponseBody::DeleteTopics(r) => {
            r.responses.iter_mut().for_each(|t| fail(&mut t.error_code, &mut t.error_message));
        }
        ResponseBody::CreatePartitions(r) => {
            r.results.iter_mut().for_each(|t| fail(&mut t.error_code, &mut t.error_message));
        }
        ResponseBody::AlterConfigs(r) => {
            r.responses.iter_mut().for_each(|t| fail(&mut t.error_code, &mut t.error_message));
        }
        ResponseBody::IncrementalAlterConfigs(r) => {
            r.responses.iter_mut().for_each(|t| fail(&mut t.error_code, &mut t.error_message));
        }
        ResponseBody::AlterUserScramCredentials(r) => {
            r.results.iter_mut().for_each(|u| fail(&mut u.error_code, &mut u.error_message));
        }
        ResponseBody::CreateAcls(r) => r.results.iter_mut().for_each(|a| fail(&mut a.error_code, &mut a.error_message)),
        ResponseBody::DeleteAcls(r) => {
            for filter in &mut r.filter_results {
                fail(&mut filter.error_code, &mut filter.error_message);
                filter.matching_acls.clear();
            }
        }
        ResponseBody::AlterClientQuotas(r) => {
            r.entries.iter_mut().for_each(|e| fail(&mut e.error_code, &mut e.error_message));
        }
        ResponseBody::AllocateProducerIds(r) => r.error_code = timed_out,
        ResponseBody::BrokerRegistration(r) => r.error_code = timed_out,
        ResponseBody::BrokerHeartbeat(r) => r.error_code = timed_out,
        ResponseBody::AlterPartition(r) => r.error_code = timed_out,
        ResponseBody::ElectLeaders(r) => r.error_code = timed_out,
        ResponseBody::ControllerRegistration(r) => fail(&mut r.error_code, &mut r.error_message),
        ResponseBody::UpdateFeatures(r) => {
            fail(&mut r.error_code, &mut r.error_message);
            r.results.iter_mut().for_each(|f| fail(&mut f.error_code, &mut f.error_message));
        }
        ResponseBody::UnregisterBroker(r) => fail(&mut r.error_code, &mut r.error_message),
        ResponseBody::AlterPartitionReassignments(r) => r
            .responses
            .iter_mut()
            .flat_map(|t| t.partitions.iter_mut())
            .for_each(|p| fail(&mut p.error_code, &mut p.error_message)),
        _ => {}
    }
}
