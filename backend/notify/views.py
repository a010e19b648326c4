"""Notifications API: a user's targets, a component's subscriptions and its delivery log. Thin views; each user
sees and changes only their own targets (staff see every delivery). Errors are `{"error": ...}`."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import NotAuthenticated, PermissionDenied, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from backend.notify import actions, channels
from backend.notify import serializers as s
from backend.notify.models import Delivery, Subscription, Target
from backend.projects.models import Project
from backend.projects.service import audit
from backend.regressions.views import component_name, component_project, require_manager

ERRORS = {400: s.ErrorSerializer, 401: s.ErrorSerializer, 403: s.ErrorSerializer}
DELIVERY_LOG = 50


def _user(request: Request) -> Any:
    if not getattr(request.user, "is_authenticated", False):
        raise NotAuthenticated("log in or send an API token (Authorization: Token ...)")
    return request.user


def _yours(request: Request, name: str) -> tuple[str, Any, Project]:
    """The component of the URL, you, and the component's project (`?project=`, the token's, or the default)."""
    component = component_name(name)
    user = _user(request)
    return component, user, component_project(request)


def target_json(target: Target) -> dict[str, Any]:
    return {
        "id": int(target.pk),
        "kind": target.kind,
        "name": target.name,
        "address_hint": target.address_hint,
        "chat_id": target.chat_id,
        "for_tank_notify": target.for_tank_notify,
        "created_at": target.created_at,
    }


def _own_target(user: Any, target_id: int) -> Target:
    # Missing and someone else's answer alike: the ids of others' targets are not disclosed.
    target = Target.objects.filter(pk=target_id, owner=user).first()
    if target is None:
        raise PermissionDenied(f"target {target_id} is not one of yours")
    return target


class TargetsView(APIView):
    @extend_schema(responses={200: s.TargetSerializer(many=True), **ERRORS}, summary="Your notification targets")
    def get(self, request: Request) -> Response:
        user = _user(request)
        return Response([target_json(t) for t in Target.objects.filter(owner=user)])

    @extend_schema(
        request=s.TargetCreateSerializer,
        responses={201: s.TargetCreatedSerializer, **ERRORS},
        summary="Add a target: Slack-compatible or Teams webhook URL, Telegram bot, or signed JSON webhook",
    )
    def post(self, request: Request) -> Response:
        user = _user(request)
        body = s.TargetCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            target, secret = actions.create_target(user, dict(body.validated_data))
        except channels.AddressError as exc:
            raise ValidationError(str(exc)) from exc
        answer = target_json(target)
        if secret is not None:
            answer["secret"] = secret
        return Response(answer, status=201)


class TargetDetailView(APIView):
    @extend_schema(request=None, responses={204: None, **ERRORS}, summary="Remove one of your targets")
    def delete(self, request: Request, target_id: int) -> Response:
        _own_target(_user(request), target_id).delete()
        return Response(status=204)


def subscription_json(sub: Subscription) -> dict[str, Any]:
    return {"id": int(sub.pk), "component": sub.component, "target": target_json(sub.target), "events": sub.events}


class SubscriptionsView(APIView):
    @extend_schema(
        responses={200: s.SubscriptionSerializer(many=True), **ERRORS},
        summary="Your targets' subscriptions to a component's events",
    )
    def get(self, request: Request, name: str) -> Response:
        component, user, project = _yours(request, name)
        subs = Subscription.objects.filter(project=project, component=component, target__owner=user)
        subs = subs.select_related("target")
        return Response([subscription_json(sub) for sub in subs])

    @extend_schema(
        request=s.SubscriptionCreateSerializer,
        responses={201: s.SubscriptionSerializer, **ERRORS},
        summary="Send a component's events (test_finished, regression_found, test_failed) to one of your targets "
        "(maintainers of its project; ?project=<slug>, default: the token's project or 'default')",
    )
    def post(self, request: Request, name: str) -> Response:
        component, user, project = _yours(request, name)
        require_manager(request, project, component)
        body = s.SubscriptionCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        target = _own_target(user, int(body.validated_data["target"]))
        try:
            sub = actions.subscribe(project.pk, component, target, list(body.validated_data["events"]), user)
        except actions.AlreadySubscribed as exc:
            raise ValidationError(str(exc)) from exc
        audit(user, project, "subscription.add", component, to=target.name, events=sub.events)
        return Response(subscription_json(sub), status=201)


class SubscriptionDetailView(APIView):
    @extend_schema(request=None, responses={204: None, **ERRORS}, summary="Stop one of your subscriptions")
    def delete(self, request: Request, name: str, sub_id: int) -> Response:
        component, user, project = _yours(request, name)
        sub = Subscription.objects.filter(pk=sub_id, project=project, component=component, target__owner=user).first()
        if sub is None:
            raise PermissionDenied(f"subscription {sub_id} is not one of yours")
        sub.delete()
        audit(user, project, "subscription.remove", component, to=sub.target.name)
        return Response(status=204)


class DeliveriesView(APIView):
    @extend_schema(
        responses={200: s.DeliverySerializer(many=True), **ERRORS},
        summary="The newest deliveries of a component's events to your targets (staff: everyone's)",
    )
    def get(self, request: Request, name: str) -> Response:
        component, user, project = _yours(request, name)
        query = Delivery.objects.filter(component=component, test__project=project)
        query = query.select_related("target")
        if not user.is_staff:
            query = query.filter(target__owner=user)
        return Response(
            [
                {
                    "id": int(d.pk),
                    "test_id": int(d.test_id),
                    "event": d.event,
                    "via": d.via,
                    "target": d.target.name,
                    "target_kind": d.target.kind,
                    "status": d.status,
                    "attempts": d.attempts,
                    "last_status_code": d.last_status_code,
                    "last_error": d.last_error,
                    "created_at": d.created_at,
                    "sent_at": d.sent_at,
                    "title": str(d.message.get("title", "")),
                }
                for d in query[:DELIVERY_LOG]
            ]
        )
