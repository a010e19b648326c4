"""URLs of the uploads app (included from backend/urls.py): the phout PUT and the upload status."""

from django.urls import URLPattern, URLResolver, path

from backend.uploads import views

urlpatterns: list[URLPattern | URLResolver] = [
    path("api/v1/tests/<int:test_id>/phout", views.PhoutUploadView.as_view(), name="upload-phout"),
    # The same view under a name that fits every format (docs/formats.md); the phout path stays for the contract.
    path("api/v1/tests/<int:test_id>/results", views.PhoutUploadView.as_view(), name="upload-results"),
    path("api/v1/tests/<int:test_id>/uploads/", views.UploadListView.as_view(), name="upload-list"),
    path("api/v1/tests/<int:test_id>/uploads/<int:upload_id>/", views.UploadDetailView.as_view(), name="upload-detail"),
]
